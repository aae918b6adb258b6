"""An invoice as a document to send (HTML, printed to PDF by ``pdf``), as CSV lines, or as
JSON. Every figure comes from the issued (frozen) document: rendering never recomputes.
"""

from __future__ import annotations

import json
from decimal import Decimal
from html import escape

from missioncache_billing.money import format_hours, format_money

FORMATS = ("html", "pdf", "csv", "json")

CSS = """
@page{size:A4;margin:18mm 16mm}
body{font:10.5pt/1.45 "DejaVu Sans",Arial,sans-serif;color:#1d2330;margin:0}
.top{display:flex;justify-content:space-between;align-items:flex-start;gap:24px}
.top>div{flex:1}
h1{font-size:22pt;margin:0 0 2px;letter-spacing:.5px}
.muted{color:#5b6475}
.parties{display:flex;gap:40px;margin:22px 0 14px}
.parties div{flex:1;white-space:pre-line}
.parties b{display:block;font-size:9pt;color:#5b6475;text-transform:uppercase;letter-spacing:.6px}
table{width:100%;border-collapse:collapse;margin-top:10px}
th,td{padding:6px 8px;border-bottom:1px solid #e1e5ec;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}
th{font-size:8.5pt;color:#5b6475;text-transform:uppercase;letter-spacing:.5px}
td.fork{padding-left:22px;color:#5b6475;font-size:9pt}
.sums{width:45%;margin-left:auto}
.sums td{border:none;padding:3px 8px}
.sums tr.total td{font-weight:700;font-size:12pt;border-top:2px solid #1d2330}
.meta td{border:none;padding:1px 0 1px 14px;text-align:right}
.meta td:first-child{color:#5b6475}
h2{font-size:11pt;margin:26px 0 0}
.appendix td,.appendix th{font-size:8.5pt;padding:3px 6px}
.appendix td:nth-child(2),.appendix th:nth-child(2){text-align:left}
.note{font-size:9pt;color:#5b6475;margin-top:14px;white-space:pre-line}
"""


def render(document: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return csv_text(document)
    if fmt in ("html", "pdf"):
        return html(document)
    raise ValueError(f"invalid format {fmt!r}: use one of {', '.join(FORMATS)}")


def _money(text: str, document: dict) -> str:
    return format_money(Decimal(text), document["currency"])


def _party(title: str, who: dict) -> str:
    lines = [who.get("name", ""), who.get("address", ""), who.get("email", "")]
    if who.get("tax_id"):
        lines.append(f"Tax ID: {who['tax_id']}")
    body = "\n".join(escape(part) for part in lines if part)
    return f"<div><b>{escape(title)}</b>{body}</div>"


def html(document: dict) -> str:
    """One self-contained page (inline CSS, nothing fetched), A4 when printed."""
    cur = document["currency"]
    number = document.get("number") or "DRAFT"
    rows = []
    for line in document["lines"]:
        ref = f" <span class='muted'>({escape(line['jira'])})</span>" if line.get("jira") else ""
        rows.append(
            f"<tr><td>{escape(line['task'])}{ref}</td><td>{format_hours(Decimal(line['hours']))}"
            f"</td><td>{_money(line['rate'], document)}</td>"
            f"<td>{_money(line['amount'], document)}</td></tr>"
        )
        for fork in line.get("forks", []):
            rows.append(
                f"<tr><td class='fork' colspan='4'>└ fork {escape(fork)} "
                f"(its time is inside this line)</td></tr>"
            )
    if document.get("lines_by_day"):
        rows = [
            f"<tr><td>{escape(d['day'])} {escape(d['task'])}</td>"
            f"<td>{format_hours(Decimal(d['hours']))}</td><td>{_money(d['rate'], document)}</td>"
            f"<td>{_money(d['amount'], document)}</td></tr>"
            for d in document["days"]
        ]
    ai = document.get("ai")
    if ai:
        rows.append(
            f"<tr><td>AI usage ({escape(_ai_words(ai['rule']))}; ${Decimal(ai['usd']):.2f} "
            f"at cost)</td><td></td><td></td><td>{_money(ai['amount'], document)}</td></tr>"
        )
    appendix = "".join(
        f"<tr><td>{escape(d['day'])}</td><td>{escape(d['task'])}</td>"
        f"<td>{_clock(d['claude_seconds'])}</td><td>{_clock(d['you_seconds'])}</td>"
        f"<td>{_clock(d['seconds'])}</td><td>{format_hours(Decimal(d['hours']))}</td></tr>"
        for d in document["days"]
    )
    sender = document["sender"]
    terms = f"Payment due by {document['due']} ({sender.get('terms_days', 30)} days)."
    payment = f"\n{sender['payment']}" if sender.get("payment") else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Invoice {escape(number)}</title>
<style>{CSS}</style></head><body>
<div class="top"><div><h1>Invoice</h1><div class="muted">{escape(document["period"]["title"])}
</div></div><table class="meta" style="width:auto;margin:0">
<tr><td>Invoice number</td><td><b>{escape(number)}</b></td></tr>
<tr><td>Issue date</td><td>{escape(document["issued"])}</td></tr>
<tr><td>Due date</td><td>{escape(document["due"])}</td></tr></table></div>
<div class="parties">{_party("From", sender)}{_party("Bill to", document["client"])}</div>
<table><thead><tr><th>Description</th><th>Hours</th><th>Rate ({escape(cur)}/h)</th>
<th>Amount</th></tr></thead><tbody>{"".join(rows)}</tbody></table>
<table class="sums">
<tr><td>Subtotal</td><td>{_money(document["subtotal"], document)}</td></tr>
<tr><td>Tax {escape(document["tax_rate"])}%</td><td>{_money(document["tax"], document)}</td></tr>
<tr class="total"><td>Total due</td><td>{_money(document["total"], document)}</td></tr>
</table>
<p class="note">{escape(terms + payment)}
Billed: {escape(document["rule"])}.</p>
<h2>Time behind this invoice, day by day</h2>
<table class="appendix"><thead><tr><th>Day</th><th>Task</th><th>Claude</th><th>You</th>
<th>Worked</th><th>Billed hours</th></tr></thead><tbody>{appendix}</tbody></table>
</body></html>
"""


def _ai_words(rule: str) -> str:
    return f"with a {rule[7:]}% markup" if rule.startswith("markup:") else "passed through"


def _clock(seconds: int) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours}:{rest // 60:02d}"


CSV_HEADER = ["invoice", "date", "task", "reference", "hours", "rate", "amount", "currency"]


def csv_text(document: dict) -> str:
    """The invoice's lines: one per task per day (what an accounting import takes), then
    the AI usage, subtotal, tax and total rows, every cell guarded like the reports'."""
    from missioncache_report.cells import csv_rows

    number = document.get("number") or "DRAFT"
    cur = document["currency"]
    jira = {line["task"]: line.get("jira") or "" for line in document["lines"]}
    rows: list = [
        [
            number,
            d["day"],
            d["task"],
            jira.get(d["task"], ""),
            d["hours"],
            d["rate"],
            d["amount"],
            cur,
        ]
        for d in document["days"]
    ]
    if document.get("ai"):
        rows.append([number, "", "AI usage", "", "", "", document["ai"]["amount"], cur])
    rows.append([number, "", "subtotal", "", document["hours"], "", document["subtotal"], cur])
    rows.append([number, "", f"tax {document['tax_rate']}%", "", "", "", document["tax"], cur])
    rows.append([number, "", "total", "", "", "", document["total"], cur])
    return str(csv_rows(CSV_HEADER, rows))
