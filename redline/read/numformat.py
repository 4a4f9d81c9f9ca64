"""List number formats: a counter's value written as Word writes it (§17.18.59 ST_NumberFormat).

:func:`format_number` is the one entry: decimal, letters, roman numerals, ordinals and words,
circled and full-width digits, Chinese counting, Word 2010's ``custom:`` formats, and decimal
for any format it does not know.  Pure functions of a number and a format name: no document,
no state.
"""

from __future__ import annotations

from collections.abc import Callable

_MAX_ROMAN = 39_999
_MAX_LETTER_REPEAT = 30  # "zzz…z", 30 letters: beyond that, decimal rather than a wall of text


def _roman(n: int) -> str:
    if not 0 < n <= _MAX_ROMAN:
        return str(n)
    parts: list[str] = []
    for value, glyph in (
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ):  # fmt: skip
        count, n = divmod(n, value)
        parts.append(glyph * count)
    return "".join(parts)


def _repeating_alphabet(alphabet: str) -> Callable[[int], str]:
    """Word's letter sequence: a..z, then aa..zz, aaa..: the letter repeats, it does not carry."""

    def fmt(n: int) -> str:
        if not 0 < n <= len(alphabet) * _MAX_LETTER_REPEAT:
            return str(n)
        count, index = divmod(n - 1, len(alphabet))
        return alphabet[index] * (count + 1)

    return fmt


_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINAL_WORDS = {
    "one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
    "nine": "ninth", "twelve": "twelfth",
}  # fmt: skip


def _cardinal_words(n: int) -> str:
    if n < 0:
        return "minus " + _cardinal_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("" if ones == 0 else "-" + _ONES[ones])
    for size, word in ((1_000_000_000, "billion"), (1_000_000, "million"), (1000, "thousand")):
        if n >= size:
            head, rest = divmod(n, size)
            tail = "" if rest == 0 else " " + _cardinal_words(rest)
            return f"{_cardinal_words(head)} {word}{tail}"
    hundreds, rest = divmod(n, 100)
    return _ONES[hundreds] + " hundred" + ("" if rest == 0 else " " + _cardinal_words(rest))


def _ordinal_words(n: int) -> str:
    words = _cardinal_words(n)
    cut = max(words.rfind(" "), words.rfind("-")) + 1
    head, last = words[:cut], words[cut:]
    if last in _ORDINAL_WORDS:
        last = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + last


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _capitalised(f: Callable[[int], str]) -> Callable[[int], str]:
    def fmt(n: int) -> str:
        text = f(n)
        return text[:1].upper() + text[1:]

    return fmt


def _decimal_zero(n: int) -> str:
    return f"0{n}" if 0 <= n < 10 else str(n)


def _enclosed_circle(n: int) -> str:
    return chr(0x2460 + n - 1) if 1 <= n <= 20 else str(n)


def _full_width(n: int) -> str:
    return str(n).translate({ord(d): 0xFF10 + int(d) for d in "0123456789"})


_CJK_DIGITS = "〇一二三四五六七八九"


def _chinese_counting(n: int) -> str:
    """一, 二, … 十, 十一, 二十 (Word's chineseCounting / chineseCountingThousand below 10000)."""
    if n <= 0 or n >= 10000:
        return str(n)
    out: list[str] = []
    zero_pending = False
    for unit, glyph in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit, n = divmod(n, unit)
        if digit == 0:
            zero_pending = bool(out)
            continue
        if zero_pending:
            out.append("零")
            zero_pending = False
        if not (unit == 10 and digit == 1 and not out):
            out.append(_CJK_DIGITS[digit])
        out.append(glyph)
    return "".join(out)


_FORMATS: dict[str, Callable[[int], str]] = {
    "decimal": str,
    "decimalHalfWidth": str,
    "decimalZero": _decimal_zero,
    "lowerLetter": _repeating_alphabet("abcdefghijklmnopqrstuvwxyz"),
    "upperLetter": _repeating_alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    "lowerRoman": lambda n: _roman(n).lower(),
    "upperRoman": _roman,
    "ordinal": _ordinal,
    "cardinalText": _capitalised(_cardinal_words),
    "ordinalText": _capitalised(_ordinal_words),
    "decimalEnclosedParen": lambda n: f"({n})",
    "decimalEnclosedFullstop": lambda n: f"{n}.",
    "decimalEnclosedCircle": _enclosed_circle,
    "decimalEnclosedCircleChinese": _enclosed_circle,
    "decimalFullWidth": _full_width,
    "decimalFullWidth2": _full_width,
    "chineseCounting": _chinese_counting,
    "chineseCountingThousand": _chinese_counting,
    "japaneseCounting": _chinese_counting,
    "russianLower": _repeating_alphabet("абвгдежзиклмнопрстуфхцчшщэюя"),
    "russianUpper": _repeating_alphabet("АБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЭЮЯ"),
    "arabicAlpha": _repeating_alphabet("أبتثجحخدذرزسشصضطظعغفقكلمنهوي"),
    "none": lambda n: "",
}


def format_number(n: int, fmt: str) -> str:
    """``n`` written in the list number format ``fmt`` (an ``ST_NumberFormat`` value).

    Formats this module does not know fall back to decimal, as Word does for formats a
    language pack lacks; ``custom:<pattern>`` (Word 2010's ``w14`` custom formats such as
    ``"001, 002, 003, ..."``) pads with zeros to the pattern's width.
    """
    if fmt.startswith("custom:"):
        first = fmt[len("custom:") :].split(",", 1)[0].strip()
        if first.isdigit() and n >= 0:
            return str(n).zfill(len(first))
        return str(n)
    return _FORMATS.get(fmt, str)(n)
