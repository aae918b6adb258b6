// MissionCache dashboard: plain script, no build step. Every text from the server is put
// in with textContent; the one HTML fragment (a context file) is escaped by the server.
"use strict";

const PALETTE = ["#2f7ed8", "#f28f43", "#8bbc21", "#910000", "#1aadce", "#492970", "#77a1e5", "#c42525"];
const state = { period: "week", teamPeriod: "week", sessions: [], tasksVersion: -1, route: "" };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function duration(seconds) {
  seconds = Math.max(0, Math.round(seconds || 0));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60), rest = minutes % 60;
  return rest ? `${hours}h ${rest}m` : `${hours}h`;
}

async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

function money(cost) {
  return cost === null || cost === undefined ? "unknown price" : `$${cost.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

function split(time) {
  // the parts as `missioncache time` and the report write them (`<1m`, adding up)
  const shown = time.shown || { claude: duration(time.claude), you: duration(time.you) };
  return `${duration(time.total)} (${shown.claude} / ${shown.you})`;
}

function renderTasks(tasks) {
  const body = document.querySelector("#tasks tbody");
  body.replaceChildren();
  document.getElementById("no-tasks").hidden = tasks.length > 0;
  for (const task of tasks) {
    // A fork sits under its parent, so its own name is enough there.
    const name = el("a", { href: `#/task/${task.id}` }, task.depth ? task.name : task.shown_name);
    const cell = el("td", { class: task.depth ? "fork" : "" }, name, billingNote(task.billing));
    if (task.depth) cell.style.paddingLeft = `${0.6 + task.depth * 1.2}rem`;
    const share = task.total ? Math.round((100 * task.done) / task.total) : 0;
    const bar = el("span", { class: "bar" }, el("span"));
    bar.firstChild.style.width = `${share}%`;
    body.append(
      el("tr", { "data-task": task.name },
        cell,
        el("td", {}, el("span", { class: "status" }, task.status)),
        el("td", { class: "num" }, `[${task.done}/${task.total}]`, bar),
        el("td", { class: "num" }, duration(task.time.today.total)),
        el("td", { class: "num" }, duration(task.time.week.total)),
        el("td", { class: "num" }, split(task.time.all)),
        el("td", { class: "num" }, money(task.cost)),
        el("td", { class: "num" }, task.last_worked || "never"),
      ),
    );
  }
}

// The client, and what this month bills (docs/billing.md): under the task's name.
function billingNote(billing) {
  if (!billing) return null;
  const figure = billing.amount ? ` · ${billing.hours} h this month = ${billing.amount}` : " · no rate";
  return el("div", { class: "billing muted" }, billing.client + figure);
}

function renderSessions() {
  const body = document.querySelector("#sessions tbody");
  body.replaceChildren();
  document.getElementById("no-sessions").hidden = state.sessions.length > 0 || !state.loaded;
  const now = Date.now() / 1000;
  // The machine column only when a session synced from another machine is listed.
  const elsewhere = state.sessions.some((s) => s.machine);
  document.getElementById("machine-col").hidden = !elsewhere;
  for (const s of state.sessions) {
    const running = s.turn_running;
    const machine = el("td", { class: s.machine ? "machine" : "machine muted" }, s.machine || "this machine");
    machine.hidden = !elsewhere;
    const task = s.task_id ? el("a", { href: `#/task/${s.task_id}` }, s.task) : el("span", { class: "muted" }, "no task");
    body.append(
      el("tr", { "data-session": s.session_id },
        el("td", { class: "num", title: s.session_id }, s.session_id.slice(0, 8)),
        machine,
        el("td", {}, task),
        el("td", { class: running ? "state-running" : "state-waiting" }, running ? "turn running" : "waiting for you"),
        el("td", { class: "num turn" }, running && s.turn_started ? duration(now - s.turn_started) : ""),
        el("td", { class: "num edits" }, String(s.edit_count)),
        el("td", {}, s.last_prompt || ""),
      ),
    );
  }
}

function renderChart(chart) {
  const box = document.getElementById("chart");
  box.replaceChildren();
  const ns = "http://www.w3.org/2000/svg";
  const width = 900, height = 200, pad = 48, top0 = 18;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height + 40}`);
  svg.setAttribute("width", "100%");
  const text = (x, y, anchor, content, cls) => {
    const node = document.createElementNS(ns, "text");
    node.setAttribute("x", x);
    node.setAttribute("y", y);
    node.setAttribute("text-anchor", anchor);
    node.setAttribute("font-size", "11");
    if (cls) node.setAttribute("class", cls);
    node.textContent = content;
    svg.append(node);
  };
  const totals = chart.days.map((d) => Object.values(d.tasks).reduce((a, b) => a + b, 0));
  const hours = Math.max(1, Math.ceil(Math.max(0, ...totals) / 3600));
  const top = hours * 3600, inner = height - top0;
  const step = hours <= 4 ? 1 : Math.ceil(hours / 4);
  for (let h = 0; h <= hours; h += step) { // the axis: hours, with grid lines
    const y = height - (inner * h * 3600) / top;
    const line = document.createElementNS(ns, "line");
    line.setAttribute("x1", pad); line.setAttribute("x2", width);
    line.setAttribute("y1", y); line.setAttribute("y2", y);
    line.setAttribute("stroke", h ? "#e6e9ef" : "#9aa3b2");
    svg.append(line);
    text(pad - 6, y + 4, "end", `${h}h`, "axis");
  }
  const slot = (width - pad) / chart.days.length;
  chart.days.forEach((day, index) => {
    let y = height;
    chart.tasks.forEach((name, taskIndex) => {
      const seconds = day.tasks[name] || 0;
      if (!seconds) return;
      const h = (inner * seconds) / top;
      y -= h;
      const rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", pad + index * slot + slot * 0.15);
      rect.setAttribute("y", y);
      rect.setAttribute("width", slot * 0.7);
      rect.setAttribute("height", h);
      rect.setAttribute("fill", PALETTE[taskIndex % PALETTE.length]);
      const tip = document.createElementNS(ns, "title");
      tip.textContent = `${day.day} ${name}: ${duration(seconds)}`;
      rect.append(tip);
      svg.append(rect);
    });
    if (totals[index] && (chart.days.length <= 7 || index % 3 === 0)) {
      text(pad + index * slot + slot / 2, y - 4, "middle", duration(totals[index]), "fig"); // the day's figure
    }
    if (chart.days.length <= 7 || index % 5 === 0) {
      text(pad + index * slot + slot / 2, height + 16, "middle", day.day.slice(5));
    }
  });
  const legend = el("div", { class: "legend" });
  chart.tasks.forEach((name, i) => {
    const swatch = el("i");
    swatch.style.background = PALETTE[i % PALETTE.length];
    legend.append(el("span", {}, swatch, name));
  });
  box.append(svg, legend);
}

function section(title, ...content) {
  return [el("h2", {}, title), ...content];
}

function renderTask(task) {
  const page = document.getElementById("task");
  page.replaceChildren();
  const head = el("h2", {}, task.shown_name, " ", el("span", { class: "status" }, task.status));
  const facts = el("p", { class: "muted" },
    `[${task.done}/${task.total}] · today ${duration(task.time.today.total)} · week ${duration(task.time.week.total)} · all ${split(task.time.all)} · ${money(task.cost)} · last worked ${task.last_worked || "never"}`);
  page.append(el("p", {}, el("a", { href: "#/" }, "← all tasks")), head, facts);
  const billing = billingNote(task.billing);
  if (billing) page.append(billing);
  if (task.forks.length) {
    const links = task.forks.map((f) => el("li", {}, el("a", { href: `#/task/${f.id}` }, f.name), " ", el("span", { class: "status" }, f.status)));
    page.append(el("p", {}, "Forks:"), el("ul", { class: "forks" }, ...links));
  }
  const context = el("div", { class: "markdown" });
  if (task.context_html === null) context.append(el("p", { class: "muted" }, "The context file is missing."));
  else context.innerHTML = task.context_html; // escaped by the server (markdown.py)
  page.append(...section(task.context_file || "Context", context));
  const list = el("ul", { class: "checklist" });
  for (const item of task.checklist) {
    list.append(el("li", { class: item.done ? "done" : "" }, item.done ? "☑ " : "☐ ", item.number ? `${item.number}. ` : "", item.text));
  }
  page.append(...section("Tasks", task.checklist.length ? list : el("p", { class: "muted" }, "No checklist items.")));
  const summaries = task.compactions.map((c) =>
    el("details", {}, el("summary", {}, `${c.when} · ${c.trigger}`), el("pre", {}, c.summary || "(summary no longer kept)")));
  page.append(...section("Compaction summaries (newest first)", ...(summaries.length ? summaries : [el("p", { class: "muted" }, "No compactions yet.")])));
  const versions = task.history.map((v) =>
    el("details", {}, el("summary", {}, `${v.file} · ${v.saved} · ${v.bytes} bytes`), el("pre", {}, v.text || "")));
  page.append(...section("Earlier versions", ...(versions.length ? versions : [el("p", { class: "muted" }, "No earlier versions kept.")])));
  const rows = task.sessions.map((s) =>
    el("tr", {}, el("td", { class: "num" }, s.start || ""), el("td", { class: "num" }, s.end || ""), el("td", { class: "num" }, duration(s.seconds)), el("td", { class: "num" }, String(s.prompts || 0)), el("td", { class: "num", title: (s.claude_sessions || []).join(", ") }, String((s.claude_sessions || []).length))));
  const table = el("table", {}, el("thead", {}, el("tr", {}, ...["start", "end", "time", "prompts", "Claude Code sessions"].map((h) => el("th", {}, h)))), el("tbody", {}, ...rows));
  page.append(...section("Work sessions", rows.length ? table : el("p", { class: "muted" }, "No work sessions yet.")));
}

async function refreshTasks() {
  const [tasks, chart] = await Promise.all([getJSON("/api/tasks"), getJSON(`/api/days?period=${state.period}`)]);
  renderTasks(tasks.tasks);
  renderChart(chart);
}

async function refreshSessions() {
  state.sessions = (await getJSON("/api/sessions")).sessions;
  state.loaded = true;
  document.getElementById("sessions-loading").hidden = true;
  renderSessions();
}

function withCode(text) {
  // Markdown's `code` in a message: shown as code, every part still put in as text
  return String(text).split("`").map((part, i) => (i % 2 ? el("code", {}, part) : part));
}

async function refreshHealth() {
  const health = await getJSON("/api/health");
  document.getElementById("tab-team").hidden = !health.team;
  const banner = document.getElementById("health");
  banner.replaceChildren();
  banner.hidden = health.problems.length === 0;
  if (health.problems.length) {
    banner.append(el("strong", {}, "MissionCache needs attention: "));
    for (const p of health.problems) banner.append(el("div", {}, ...withCode(`${p.area}: ${p.text}`), ...(p.fix ? withCode(` (fix: ${p.fix})`) : [])));
    banner.append(el("div", {}, ...withCode(`Run \`${health.command || "missioncache"} doctor\` for the full report.`)));
  }
}

async function route() {
  const match = location.hash.match(/^#\/task\/(\d+)$/);
  const onTeam = location.hash === "#/team";
  document.getElementById("home").hidden = Boolean(match) || onTeam;
  document.getElementById("task").hidden = !match;
  document.getElementById("team").hidden = !onTeam;
  document.getElementById("tab-tasks").classList.toggle("on", !onTeam);
  document.getElementById("tab-team").classList.toggle("on", onTeam);
  if (match) renderTask(await getJSON(`/api/tasks/${match[1]}`));
  else if (onTeam) await refreshTeam();
  else await refreshTasks();
}

// The team page (docs/dashboard.md, "Team"): figures from the team's server, by task and
// by person. Every name in it comes from other people's machines: text nodes only.
function stamp(epoch) {
  const d = new Date(epoch * 1000), two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function teamTokens(f) {
  const t = f.tokens;
  return (t.input + t.output + t.cache_write + t.cache_read).toLocaleString("en-US");
}

function teamCost(f) {
  return money(f.cost_usd) + (f.unpriced_messages ? " + unpriced" : "");
}

function teamTime(f) {
  const waiting = f.waiting_seconds ? `, waiting ${duration(f.waiting_seconds)}` : "";
  return `${duration(f.seconds)} (${duration(f.claude_seconds)} / ${duration(f.you_seconds)})${waiting}`;
}

function teamStatus(status) {
  let text;
  if (!status.last_push) text = "No push yet: `missioncache team push` sends your figures now.";
  else if (status.reached) text = `Last push ${stamp(status.last_push)}: it reached the team's server (${plural(status.sent || 0, "event")} sent).`;
  else text = `Last push ${stamp(status.last_push)}: the team's server was not reached (${status.error || "no answer"}).`;
  if (status.waiting === null || status.waiting === undefined) text += " Events waiting here: unknown (tasks.db is busy).";
  else text += status.waiting ? ` ${plural(status.waiting, "event")} wait here for the next push.` : " Nothing waits to be pushed.";
  return text;
}

function teamTable(head, rows) {
  return el("table", {}, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))), el("tbody", {}, ...rows));
}

function figureCells(f) {
  return [el("td", { class: "num" }, teamTime(f)), el("td", { class: "num" }, teamTokens(f)), el("td", { class: "num" }, teamCost(f))];
}

function renderTeam(answer) {
  const body = document.getElementById("team-body"), status = document.getElementById("team-status");
  const problem = document.getElementById("team-problem");
  body.replaceChildren();
  problem.replaceChildren();
  problem.hidden = !answer.problem;
  status.replaceChildren();
  if (!answer.set_up) {
    body.append(el("p", { id: "team-not-set-up" }, ...withCode(`No team is set up on this machine. \`${answer.how}\` sends your figures to the team's PostgreSQL (docs/team.md says how).`)));
    return;
  }
  status.append(...withCode(teamStatus(answer.status)));
  if (answer.problem) {
    problem.append(...withCode(answer.problem));
    return;
  }
  const taskRows = [];
  for (const row of answer.task.rows) {
    const name = el("td", {}, row.task, row.client ? el("div", { class: "billing muted" }, row.client) : null);
    taskRows.push(el("tr", { class: "task-row", "data-team-task": row.task }, name, el("td", {}, "team"), ...figureCells(row)));
    for (const [person, f] of Object.entries(row.people)) {
      taskRows.push(el("tr", { "data-team-task": row.task, "data-person": person }, el("td", {}), el("td", { class: "person" }, person), ...figureCells(f)));
    }
  }
  const personRows = answer.person.rows.map((row) =>
    el("tr", { "data-person": row.person }, el("td", {}, row.person), ...figureCells(row)));
  const none = el("p", { class: "muted" }, "No time or cost recorded by the team in this period.");
  const head = ["time (Claude / you)", "tokens", "cost"];
  body.append(
    el("h2", {}, "By task"),
    taskRows.length ? teamTable(["task", "who", ...head], taskRows) : none,
    el("h2", {}, "By person"),
    personRows.length ? teamTable(["person", ...head], personRows) : none.cloneNode(true),
    el("p", { class: "muted" }, `Team total: ${teamTime(answer.task.total)}, ${teamCost(answer.task.total)}. Figures from the team's server at ${stamp(answer.checked)} (asked at most once a minute).`),
  );
}

async function refreshTeam() {
  const period = state.teamPeriod;
  const answer = await getJSON(`/api/team?period=${period}`);
  // A slower answer for a period no longer chosen must not replace the chosen one's.
  if (period === state.teamPeriod) renderTeam(answer);
}

function report(error) {
  document.getElementById("live-state").textContent = `problem: ${error.message}`;
}

function listen() {
  const label = document.getElementById("live-state");
  if (!window.EventSource) return poll();
  const source = new EventSource("/api/events");
  source.onopen = () => { label.textContent = "live"; };
  source.onmessage = (message) => {
    const note = JSON.parse(message.data);
    refreshSessions().catch(report);
    if (note.tasks !== state.tasksVersion) {
      state.tasksVersion = note.tasks;
      route().catch(report);
    }
  };
  source.onerror = () => { label.textContent = "reconnecting…"; };
}

function poll() {
  setInterval(() => refreshSessions().catch(report), 1500);
}

document.querySelectorAll("button[data-period]").forEach((button) => {
  button.addEventListener("click", () => {
    state.period = button.dataset.period;
    document.querySelectorAll("button[data-period]").forEach((b) => b.classList.toggle("on", b === button));
    refreshTasks().catch(report);
  });
});
document.querySelectorAll("button[data-team-period]").forEach((button) => {
  button.addEventListener("click", () => {
    state.teamPeriod = button.dataset.teamPeriod;
    document.querySelectorAll("button[data-team-period]").forEach((b) => b.classList.toggle("on", b === button));
    refreshTeam().catch(report);
  });
});
window.addEventListener("hashchange", () => route().catch(report));
setInterval(renderSessions, 1000); // the running turn's length ticks
setInterval(() => refreshSessions().catch(report), 10000); // turns that end without a hook
setInterval(() => route().catch(report), 60000); // time figures move on
setInterval(() => refreshHealth().catch(report), 30000);
Promise.all([route(), refreshSessions(), refreshHealth()]).catch(report);
listen();
