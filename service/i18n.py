"""Error messages and action labels in English, Arabic, Spanish and Nepali.

The language is the best match of the request's ``Accept-Language`` (q-values count;
``ar-SA`` reads as ``ar``) among :data:`LANGUAGES`, English when none matches. An
answer whose words depend on it carries ``Content-Language`` and
``Vary: Accept-Language``.

The words live in one gettext catalogue per language, ``service/translations/<lang>.po``,
read by the small loader below (no compile step, no dependency). Each entry has a
context saying what it is:

* ``error``: an error code -> its message. ``{name}`` is filled from the error's
  ``details``, and a ``[...]`` part is kept only when every name inside it has a value,
  so a message reads well with or without a detail.
* ``verb``: an action type -> the verb of its label; ``field``: a field -> the words
  before its value; ``flag``: a boolean field -> ``"when true|when false"``;
  ``word``: ``joker`` and ``cards`` (a deck's size, ``{n}``).

English answers keep the message written where the error is raised, which says more
than a catalogue can (en.po is the reference the other catalogues translate); only the
message changes with the language, never the code or the details. The reason of an
illegal move (its ``reason`` member) is the rules reference's English text in every
language.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Any

from flask import Flask, Response, g, has_request_context, request
from werkzeug.datastructures import LanguageAccept

from engine import labels
from engine.labels import ENGLISH, LabelWords

LANGUAGES = ("en", "ar", "es", "ne")
"""The languages served, English (the fallback) first."""
DEFAULT = "en"
CATALOGUES = Path(__file__).parent / "translations"

Catalogue = dict[tuple[str, str], str]  # (context, key) -> text

_ENTRY_LINE = re.compile(r'^(msgctxt|msgid|msgstr)\s+(".*")$')
_NAME = re.compile(r"\{(\w+)\}")
_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")


def parse_po(text: str) -> Catalogue:
    """The entries of a .po file: ``msgctxt``, ``msgid``, ``msgstr``, each a string
    continued on the following quoted lines; comments and the header are skipped."""
    entries: Catalogue = {}
    entry: dict[str, str] = {}
    last = ""

    def close() -> None:
        if entry.get("msgid"):
            entries[(entry.get("msgctxt", ""), entry["msgid"])] = entry.get("msgstr", "")
        entry.clear()

    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            entry[last] += ast.literal_eval(line)
            continue
        match = _ENTRY_LINE.match(line)
        if match is None:
            raise ValueError(f"not a .po line: {line!r}")
        last = match.group(1)
        if last in ("msgctxt", "msgid") and "msgstr" in entry:
            close()
        entry[last] = ast.literal_eval(match.group(2))
    close()
    return entries


@functools.cache
def catalogue(language: str) -> Catalogue:
    """The catalogue of one language, read once."""
    return parse_po((CATALOGUES / f"{language}.po").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- language


def request_language() -> str:
    """The request's language (``en`` outside a request), remembered as the answer's
    ``Content-Language``."""
    if not has_request_context():
        return DEFAULT
    if "language" not in g:
        g.language = best_language(request.accept_languages)
    return str(g.language)


def best_language(accepted: LanguageAccept) -> str:
    """The first served language in the client's order of preference, matching on the
    primary tag (``es-MX`` is ``es``); English for ``*`` or when none is served.

    werkzeug's ``best_match`` is not used: it prefers an exact ``en;q=0.1`` to an
    ``ar-SA`` of quality 1 (and its order puts a specific tag before a better ``*``)."""
    for value, quality in sorted(accepted, key=lambda entry: -entry[1]):  # stable: ties keep their order
        primary = value.replace("_", "-").split("-", 1)[0].lower()
        if quality > 0 and primary in LANGUAGES:
            return primary
        if quality > 0 and value == "*":
            return DEFAULT
    return DEFAULT


def set_content_language(response: Response) -> Response:
    """After a request whose answer used its language: say which, and that it varies."""
    language = g.get("language")
    if language:
        response.headers["Content-Language"] = language
        response.vary.add("Accept-Language")
    return response


def init_app(app: Flask) -> None:
    app.after_request(set_content_language)


# --------------------------------------------------------------------------- errors


def shown(value: Any) -> str:
    """A detail as words: a list or a mapping's keys joined with commas."""
    if isinstance(value, dict | list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def fill(template: str, details: dict[str, Any]) -> str:
    """The template with each ``{name}`` replaced by its detail, each ``[...]`` part
    dropped when a name in it has no value."""

    def optional(part: re.Match[str]) -> str:
        names = _NAME.findall(part.group(1))
        present = all(details.get(name) not in (None, "", [], {}) for name in names)
        return part.group(1) if present else ""

    text = _OPTIONAL.sub(optional, template)
    return _NAME.sub(lambda name: shown(details.get(name.group(1), "")), text)


def error_message(code: str, message: str, details: dict[str, Any]) -> str:
    """The message of an error in the request's language: ``message`` itself in English
    (or for a code no catalogue knows), else the code's catalogue message."""
    language = request_language()
    template = catalogue(language).get(("error", code)) if language != DEFAULT else None
    if not template:
        if has_request_context():
            g.language = DEFAULT  # the answer is in English after all
        return message
    return fill(template, details)


# --------------------------------------------------------------------------- labels


@functools.cache
def label_words(language: str) -> LabelWords:
    """The words of labels in ``language``, from its catalogue."""
    if language == DEFAULT:
        return ENGLISH
    entries = catalogue(language)

    def table(context: str) -> dict[str, str]:
        return {key: text for (ctx, key), text in entries.items() if ctx == context and text}

    def true_false(text: str) -> tuple[str, str]:
        when_true, _, when_false = text.partition("|")
        return when_true, when_false

    words = table("word")
    return LabelWords(
        verbs=table("verb"),
        fields={**ENGLISH.fields, **table("field")},  # a field no catalogue names reads in English
        flags={key: true_false(text) for key, text in table("flag").items()},
        joker=words.get("joker", ENGLISH.joker),
        cards=words.get("cards", ENGLISH.cards),
    )


def label(action: dict[str, Any]) -> str:
    """A short label of a JSON action in the request's language (see engine/labels.py)."""
    return labels.label(action, label_words(request_language()))


# --------------------------------------------------------------------------- the table page

LANGUAGE_COOKIE = "majlis-lang"
"""The table page's language picker keeps the choice in this cookie."""
LANGUAGE_NAMES = {"en": "English", "ar": "العربية", "es": "Español", "ne": "नेपाली"}
RIGHT_TO_LEFT = frozenset({"ar"})


def page_language() -> str:
    """The table page's language: ``?lang=``, else the picker's cookie, else
    ``Accept-Language`` (English when none is served); remembered for Content-Language."""
    for chosen in (request.args.get("lang"), request.cookies.get(LANGUAGE_COOKIE)):
        if chosen in LANGUAGES:
            g.language = chosen
            return chosen
    return request_language()


@functools.cache
def page_catalogue(language: str) -> Catalogue:
    return parse_po((CATALOGUES / f"page-{language}.po").read_text(encoding="utf-8"))


@functools.cache
def page_words(language: str) -> dict[str, dict[str, str]]:
    """The page's words by context (``page``, or a game id) then key: ``language``'s words
    over the English ones, so that a word no catalogue of that language has reads in English
    (a Baloot term on the Spanish page, say)."""
    words: dict[str, dict[str, str]] = {}
    for lang in dict.fromkeys((DEFAULT, language)):
        for (context, key), text in page_catalogue(lang).items():
            if text:
                words.setdefault(context, {})[key] = text
    return words
