"""Open Packaging Conventions (ECMA-376 Part 2): part names, content types, relationships, and
the main part -- read once at load into an :class:`Opc` that nobody changes.

* Part names (:class:`PartNames`): compared percent-decoded, case-insensitively, with or
  without a leading ``/`` (:func:`name_key`); a name that is not a safe relative path
  (:func:`unsafe_reason`) or equals another one is refused while the zip is read
  (:class:`NameCheck`).
* Content types (:class:`ContentTypes`): ``[Content_Types].xml``'s Defaults and Overrides.
* Relationships (:class:`Relationship`, :func:`parse_rels`): targets resolved to the
  package's own spelling of the part they name.
* The main part (:func:`read_opc`): the officeDocument relationship of ``_rels/.rels``, which
  must be a Transitional WordprocessingML document that is not macro-enabled.

Every refusal is a :class:`~redline.errors.PackageError`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal
from urllib.parse import unquote

from lxml import etree

from shared_schema import Code

from ..errors import PackageError
from .namespaces import CT_NS, PKG_REL_NS, REL_OFFICE_DOCUMENT, REL_STRICT_OFFICE_DOCUMENT

__all__ = [
    "CONTENT_TYPES",
    "ContentTypes",
    "NameCheck",
    "Opc",
    "PartNames",
    "Relationship",
    "check_macro_members",
    "check_macro_relationships",
    "check_macro_types",
    "is_macro_type",
    "macro_refusal",
    "name_key",
    "parse_rels",
    "read_opc",
    "rels_part_for",
    "unsafe_reason",
]

CONTENT_TYPES: Final = "[Content_Types].xml"
_PACKAGE_RELS: Final = "_rels/.rels"
_CT_WORD_MAIN: Final = frozenset(
    {
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    }
)
_CT_MACRO: Final = frozenset(
    {
        "application/vnd.ms-word.document.macroenabled.main+xml",
        "application/vnd.ms-word.template.macroenabledtemplate.main+xml",
        "application/vnd.ms-office.vbaproject",
        "application/vnd.ms-word.vbadata+xml",
    }
)
_MACRO_MEMBERS: Final = frozenset({"vbaproject.bin", "vbadata.xml"})
# Parts only a macro-enabled document holds, by content type (Default or Override), whatever
# they are called: the VBA project, its signatures and its data ([MS-OFFMACRO2]). Key maps
# (keyMapCustomizations) and toolbars are not among them: a plain .docx holds them too (one
# of the corpus documents does), naming Word's own commands.
_CT_MACRO_PARTS: Final = frozenset(
    {
        "application/vnd.ms-office.vbaproject",
        "application/vnd.ms-office.vbaprojectsignature",
        "application/vnd.ms-office.vbaprojectsignatureagile",
        "application/vnd.ms-office.vbaprojectsignaturev3",
        "application/vnd.ms-word.vbadata+xml",
    }
)
# ... and by the relationship that points at them (a byte search of every .rels part, lower
# case: relationship types compare case-insensitively).
_REL_MACRO: Final = (
    b"/relationships/vbaproject",  # vbaProject, vbaProjectSignature, ...Agile, ...V3
    b"/relationships/wordvbadata",
)
# XHTML altChunks legitimately carry <!DOCTYPE html ...> and are never parsed by us.
_CT_NOT_SCANNED: Final = frozenset({"application/xhtml+xml", "text/html"})
_DRIVE: Final = re.compile(r"^[A-Za-z]:")


# --- part names -------------------------------------------------------------------------------


def name_key(name: str) -> str:
    """How OPC compares part names: percent-decoded, case-insensitive, no leading slash."""
    return unquote(name.lstrip("/")).casefold()


def unsafe_reason(name: str) -> str | None:
    """Why ``name`` is not a safe relative part name, or None when it is."""
    if not name:
        return "it is empty"
    if "\\" in name:
        return "it contains a backslash"
    if name.startswith("/"):
        return "it is an absolute path"
    if _DRIVE.match(name):
        return "it starts with a drive letter"
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        return "it contains a control character"
    segments = name.rstrip("/").split("/")
    if any(seg in (".", "..") for seg in segments):
        return "it contains a '.' or '..' segment"
    return None


class NameCheck:
    """The part-name rules a zip's members must pass, asked member by member in directory
    order (``unsafe_part_name``, ``duplicate_part``)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def __call__(self, name: str) -> None:
        reason = unsafe_reason(name) or unsafe_reason(unquote(name))
        if reason:
            raise PackageError(
                Code.UNSAFE_PART_NAME,
                f"The zip member name {name!r} is not a safe part name: {reason}.",
                name,
            )
        key = name_key(name)
        other = self._seen.get(key)
        if other is not None:
            same = other == name
            raise PackageError(
                Code.DUPLICATE_PART,
                f"The package holds the part {name} twice"
                + ("" if same else f" (as {other} and {name}; part names ignore case and %-escapes)")
                + ", so which one counts is ambiguous; the file is refused.",
                name,
            )
        self._seen[key] = name


@dataclass(frozen=True, slots=True)
class PartNames:
    """The package's part names in zip order, looked up as OPC compares them."""

    names: tuple[str, ...]
    exact: frozenset[str]
    by_key: Mapping[str, str]

    @classmethod
    def of(cls, names: Iterable[str]) -> PartNames:
        """The names (already checked by :class:`NameCheck`: safe and distinct)."""
        ordered = tuple(names)
        return cls(ordered, frozenset(ordered), MappingProxyType({name_key(n): n for n in ordered}))

    def find(self, name: str) -> str | None:
        """The package's own spelling of part ``name`` (case-insensitive, percent-decoded,
        leading ``/`` optional), or None when there is no such part."""
        if name in self.exact:
            return name
        return self.by_key.get(name_key(name))


def macro_refusal(part: str | None) -> PackageError:
    return PackageError(
        Code.MACRO_ENABLED,
        "The document is macro-enabled (.docm, with a VBA project); macro documents are "
        "refused. Save it as a plain Word Document (.docx) first.",
        part,
    )


def check_macro_members(names: Iterable[str]) -> None:
    """Refuse a package with a VBA project member (``macro_enabled``)."""
    for name in names:
        if posixpath.basename(name).casefold() in _MACRO_MEMBERS:
            raise macro_refusal(name)


def is_macro_type(ct: str | None) -> bool:
    """Is ``ct`` the content type of macro content (a macro-enabled main part, a VBA project
    and what goes with it)?"""
    lowered = (ct or "").split(";", 1)[0].strip().lower()
    return lowered in _CT_MACRO or lowered in _CT_MACRO_PARTS or "macroenabled" in lowered


def check_macro_types(names: Iterable[str], types: ContentTypes) -> None:
    """Refuse a package any of whose members has a macro content type, by its Override or by
    the Default for its extension (``macro_enabled``), whatever the member is called."""
    for name in names:
        if is_macro_type(types.of(name)):
            raise macro_refusal(name)


def check_macro_relationships(data: bytes, part: str) -> None:
    """Refuse a relationships part that points at macro content (``macro_enabled``), from its
    bytes: the relationship types of :data:`_REL_MACRO`, wherever the target is."""
    lowered = data.lower()
    if any(marker in lowered for marker in _REL_MACRO):
        raise macro_refusal(part)


# --- content types ----------------------------------------------------------------------------


def _is_xml_content_type(ct: str | None) -> bool:
    if ct is None:
        return False
    ct = ct.split(";", 1)[0].strip().lower()
    if ct in _CT_NOT_SCANNED:
        return False
    return ct.endswith("+xml") or ct in ("application/xml", "text/xml")


@dataclass(frozen=True, slots=True)
class ContentTypes:
    """``[Content_Types].xml``: a content type per extension (Defaults, keys lower-case) and
    per part (Overrides, keys as :func:`name_key` makes them)."""

    defaults: Mapping[str, str]
    overrides: Mapping[str, str]

    @classmethod
    def from_xml(cls, root: etree._Element) -> ContentTypes:
        """Read from the parsed part (the first entry for a key counts); raises
        ``macro_enabled`` for an Override with a macro content type."""
        defaults: dict[str, str] = {}
        overrides: dict[str, str] = {}
        for el in root:
            if not isinstance(el.tag, str):
                continue
            if el.tag == f"{{{CT_NS}}}Default":
                ext, ct = el.get("Extension"), el.get("ContentType")
                if ext is not None and ct is not None:
                    defaults.setdefault(ext.lower(), ct.strip())
            elif el.tag == f"{{{CT_NS}}}Override":
                part, ct = el.get("PartName"), el.get("ContentType")
                if part is not None and ct is not None:
                    overrides.setdefault(name_key(part), ct.strip())
        for ct in overrides.values():
            if is_macro_type(ct):
                raise macro_refusal(None)
        return cls(MappingProxyType(defaults), MappingProxyType(overrides))

    def of(self, part: str) -> str | None:
        """The content type of ``part``: its Override, else the Default for its extension,
        else None."""
        ct = self.overrides.get(name_key(part))
        if ct is not None:
            return ct
        ext = posixpath.splitext(part)[1].lstrip(".").lower()
        return self.defaults.get(ext) if ext else None

    def is_xml(self, name: str) -> bool:
        """True for parts whose bytes are XML (``.xml``/``.rels`` or an XML content type)."""
        lower = name.lower()
        ct = self.of(name)
        if ct is not None and ct.split(";", 1)[0].strip().lower() in _CT_NOT_SCANNED:
            return False
        return lower.endswith((".xml", ".rels")) or _is_xml_content_type(ct)


# --- relationships ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Relationship:
    """One ``<Relationship>`` of a ``.rels`` part.

    ``target`` is, for an internal relationship, the zip member name it resolves to (relative
    to the source part, fragment dropped, matched case-insensitively against the package's
    names: the package's own spelling when the part exists); for an external one, the URI as
    written. ``raw_target`` is always the attribute as written.
    """

    id: str
    type: str
    target: str
    target_mode: Literal["internal", "external"]
    raw_target: str

    @property
    def external(self) -> bool:
        return self.target_mode == "external"


def rels_part_for(part: str) -> str:
    """The relationships part of ``part`` (``""`` for the package itself):
    ``word/document.xml`` → ``word/_rels/document.xml.rels``; ``""`` → ``_rels/.rels``."""
    part = part.lstrip("/")
    if not part:
        return _PACKAGE_RELS
    folder, base = posixpath.split(part)
    return posixpath.join(folder, "_rels", base + ".rels")


def parse_rels(
    root: etree._Element, source: str, find: Callable[[str], str | None]
) -> tuple[Relationship, ...]:
    """The relationships of the parsed ``.rels`` part ``root`` of part ``source`` (``""``: the
    package), internal targets resolved with ``find`` (the package's own spelling)."""
    found: list[Relationship] = []
    base = posixpath.dirname(source)
    for el in root:
        if el.tag != f"{{{PKG_REL_NS}}}Relationship":
            continue
        rid, rtype, raw = el.get("Id"), el.get("Type"), el.get("Target")
        if rid is None or rtype is None or raw is None:
            continue
        if (el.get("TargetMode") or "Internal").strip().lower() == "external":
            found.append(Relationship(rid, rtype.strip(), raw, "external", raw))
            continue
        target = _resolve(base, raw, find)
        found.append(Relationship(rid, rtype.strip(), target, "internal", raw))
    return tuple(found)


def _resolve(base: str, raw: str, find: Callable[[str], str | None]) -> str:
    ref = raw.split("#", 1)[0].strip()
    path = ref[1:] if ref.startswith("/") else posixpath.join(base, ref)
    resolved = posixpath.normpath(path) if path else ""
    if resolved in (".", ""):
        resolved = ""
    return find(resolved) or resolved


# --- the package as OPC reads it --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opc:
    """What OPC says about a loaded package: its part names, their content types, its own
    relationships and its main part.  Read once (:func:`read_opc`); nobody changes it."""

    parts: PartNames
    types: ContentTypes
    package_rels: tuple[Relationship, ...]
    main_part: str


def _describe_office(ct: str | None) -> str:
    lowered = (ct or "").lower()
    if "spreadsheetml" in lowered or "ms-excel" in lowered:
        return "a spreadsheet (.xlsx)"
    if "presentationml" in lowered or "ms-powerpoint" in lowered:
        return "a presentation (.pptx)"
    if ct is None:
        return "an Office package whose main part has no content type"
    return f"an Office package of another kind (main part {ct})"


def read_opc(parts: PartNames, parse: Callable[[str], etree._Element]) -> Opc:
    """The content types, the package relationships and the main part of a package whose
    parts are ``parts``; ``parse`` gives the parsed root of a part (by its own name).

    Raises ``missing_content_types``, ``macro_enabled``, ``no_main_document``,
    ``strict_ooxml``, ``not_wordprocessing`` (and what ``parse`` raises)."""
    name = parts.find(CONTENT_TYPES)
    if name is None:
        raise PackageError(
            Code.MISSING_CONTENT_TYPES,
            "The file is a zip archive but not an Office document: it has no [Content_Types].xml.",
        )
    types = ContentTypes.from_xml(parse(name))
    rels_name = parts.find(_PACKAGE_RELS)
    if rels_name is None:
        raise PackageError(
            Code.NO_MAIN_DOCUMENT,
            "The file is a zip archive but not a Word document: it has no package "
            "relationships (_rels/.rels), so there is no main document.",
        )
    rels = parse_rels(parse(rels_name), "", parts.find)
    for rel in rels:
        if rel.type == REL_STRICT_OFFICE_DOCUMENT:
            raise PackageError(
                Code.STRICT_OOXML,
                "The document is saved as Strict Open XML (ISO 29500 Strict), which is not "
                "supported; save it from Word as a normal Word Document (.docx) first.",
            )
    main = next((r for r in rels if r.type == REL_OFFICE_DOCUMENT and not r.external), None)
    if main is None:
        raise PackageError(
            Code.NO_MAIN_DOCUMENT,
            "The package has no main document: _rels/.rels holds no officeDocument relationship.",
        )
    found = parts.find(main.target)
    if found is None:
        raise PackageError(
            Code.NO_MAIN_DOCUMENT,
            f"The package's main document {main.raw_target} is missing from the zip.",
            main.target,
        )
    ct = types.of(found)
    lowered = (ct or "").lower()
    if lowered in _CT_MACRO or "macroenabled" in lowered:
        raise macro_refusal(found)
    if lowered not in _CT_WORD_MAIN:
        raise PackageError(
            Code.NOT_WORDPROCESSING,
            f"The file is {_describe_office(ct)}, not a Word document; only .docx files are supported.",
            found,
        )
    return Opc(parts, types, rels, found)
