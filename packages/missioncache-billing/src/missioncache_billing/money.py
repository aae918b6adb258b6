"""Money in ``decimal.Decimal``, never a float: parsing rates and percentages once at the
edge, rounding to the currency's minor unit, and formatting per currency.

WHY a table of its own: an invoice must say ``€1,500.00`` or ``¥150,000`` and round to what
the currency can pay; an unknown code is refused instead of guessed.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# ISO 4217 code -> (symbol written before the amount, or "" for "CHF 1,500.00"; decimals)
CURRENCIES: dict[str, tuple[str, int]] = {
    "USD": ("$", 2),
    "EUR": ("€", 2),
    "GBP": ("£", 2),
    "JPY": ("¥", 0),
    "CHF": ("", 2),
    "CAD": ("CA$", 2),
    "AUD": ("A$", 2),
    "NZD": ("NZ$", 2),
    "SEK": ("", 2),
    "NOK": ("", 2),
    "DKK": ("", 2),
    "ISK": ("", 0),
    "PLN": ("", 2),
    "CZK": ("", 2),
    "HUF": ("", 2),
    "RON": ("", 2),
    "BGN": ("", 2),
    "TRY": ("", 2),
    "INR": ("₹", 2),
    "BRL": ("R$", 2),
    "MXN": ("MX$", 2),
    "ZAR": ("", 2),
    "SGD": ("S$", 2),
    "HKD": ("HK$", 2),
    "CNY": ("CN¥", 2),
    "KRW": ("₩", 0),
    "ILS": ("₪", 2),
    "AED": ("", 2),
}
MAX_AMOUNT = Decimal("1000000000")


def currency_code(text: object) -> str:
    """``eur`` -> ``EUR``; an unknown code is a one-line error naming the known ones."""
    code = str(text).strip().upper()
    if code not in CURRENCIES:
        raise ValueError(
            f"unknown currency {text!r}: use a three-letter ISO code such as "
            f"{', '.join(sorted(CURRENCIES)[:8])} (all: {' '.join(sorted(CURRENCIES))})"
        )
    return code


def parse_decimal(text: object, what: str, places: int = 4) -> Decimal:
    """A non-negative decimal with at most ``places`` decimals (``120``, ``97.5``): a
    negative, non-numeric, NaN or absurd value is refused with a line saying what was wrong."""
    raw = str(text).strip().replace("_", "")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValueError(f"{what} must be a number such as 120 or 97.50, not {text!r}") from None
    if not value.is_finite():
        raise ValueError(f"{what} must be a number such as 120 or 97.50, not {text!r}")
    if value < 0:
        raise ValueError(f"{what} cannot be negative ({text})")
    if value >= MAX_AMOUNT:
        raise ValueError(f"{what} is too large ({text})")
    if -value.as_tuple().exponent > places:  # type: ignore[operator]
        raise ValueError(f"{what} has more than {places} decimals ({text})")
    return value.quantize(Decimal(1)) if value == value.to_integral() else value


def to_cents(amount: Decimal, currency: str) -> Decimal:
    """Rounded half up to the currency's minor unit (cents; whole yen)."""
    places = CURRENCIES[currency][1]
    return amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def plain(amount: Decimal, currency: str) -> str:
    """``1500.00``: the machine form (CSV, JSON)."""
    return str(to_cents(amount, currency))


def format_money(amount: Decimal, currency: str) -> str:
    """``€1,500.00``, ``-€12.50``, ``CHF 1,500.00``, ``¥150,000``."""
    symbol, places = CURRENCIES[currency]
    value = to_cents(amount, currency)
    sign = "-" if value < 0 else ""
    figure = f"{abs(value):,.{places}f}"
    return f"{sign}{symbol}{figure}" if symbol else f"{sign}{currency} {figure}"


def format_hours(hours: Decimal) -> str:
    """``12.50``: decimal hours to two places, as every line shows them."""
    return f"{hours.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)}"
