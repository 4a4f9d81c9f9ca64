"""An lxml oracle of Word's accept / reject, independent of the product code (issue 30).

Word's rules, as ECMA-376 Part 1 §17.13.5 states them and Word carries them out:

* each revision is decided on its own id: an insertion accepted keeps its content (its element
  unwrapped), rejected removes it *with everything it holds* -- nested revisions of other
  authors included; a deletion (and a move's source) accepted removes its content, rejected
  keeps it as text (``w:delText`` -> ``w:t``), while a deletion nested in it stays pending;
* a move is decided whole: both sides (paired by their ranges' ``w:name``) and the range markers;
* a paragraph mark that goes (a deleted mark accepted, an inserted one rejected) joins its
  paragraph to the next one, whose mark and properties survive; a paragraph with no paragraph
  after it in its container keeps its mark;
* a property change (``w:rPrChange``, ``w:pPrChange``, ``w:sectPrChange``, ``w:tblPrChange``,
  ``w:trPrChange``, ``w:tcPrChange``, ``w:tblGridChange``, ``w:tblPrExChange``) accepted is
  dropped, rejected puts back the old properties it holds (the element's other revision
  records kept); ``w:numberingChange`` is dropped either way;
* a table row inserted (``w:trPr/w:ins``) rejected, or deleted accepted, goes with its cells; a
  table left with no row goes too.

:func:`decide` takes a verdict per revision element; :func:`accept_all`, :func:`reject_all`,
:func:`by_ids` and :func:`by_authors` are the usual ones; :func:`reading` is what the result
says (each story's paragraphs: properties, and text runs with their properties), to compare
two documents as Word shows them; :func:`revisions` lists what revision elements are left.
"""

from __future__ import annotations

import copy
import io
import re
import zipfile
from collections.abc import Callable

from lxml import etree

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def w(name: str) -> str:
    return f"{{{W}}}{name}"


CONTENT = {w("ins"), w("del"), w("moveFrom"), w("moveTo")}
PROPERTY = {
    w(t)
    for t in (
        "rPrChange", "pPrChange", "sectPrChange", "tblPrChange", "trPrChange", "tcPrChange",
        "tblGridChange", "tblPrExChange",
    )
}  # fmt: skip
RECORDS = {w("cellIns"), w("cellDel"), w("cellMerge"), w("numberingChange")}
CUSTOM_XML = {  # a custom XML markup revision's start -> (its end, whether it inserts the markup)
    w("customXmlInsRangeStart"): (w("customXmlInsRangeEnd"), True),
    w("customXmlMoveToRangeStart"): (w("customXmlMoveToRangeEnd"), True),
    w("customXmlDelRangeStart"): (w("customXmlDelRangeEnd"), False),
    w("customXmlMoveFromRangeStart"): (w("customXmlMoveFromRangeEnd"), False),
}
ALL = CONTENT | PROPERTY | RECORDS | set(CUSTOM_XML)
_STORY_ROOTS = {w(t) for t in ("document", "hdr", "ftr", "footnotes", "endnotes")}
_RANGES = {w("moveFromRangeStart"): "from", w("moveToRangeStart"): "to"}
_RANGE_ENDS = {w("moveFromRangeEnd"): "from", w("moveToRangeEnd"): "to"}
_KEEP = {  # what a property element keeps when a change is rejected (not in the old properties)
    w("rPr"): (w("ins"), w("del"), w("moveFrom"), w("moveTo")),
    w("pPr"): (w("rPr"), w("sectPr")),
    w("trPr"): (w("ins"), w("del")),
    w("tcPr"): (w("cellIns"), w("cellDel"), w("cellMerge")),
    w("sectPr"): (w("headerReference"), w("footerReference")),
}

Verdict = Callable[[etree._Element], "bool | None"]


def parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def stories(files: dict[str, bytes]) -> dict[str, etree._Element]:
    out = {}
    for name, raw in files.items():
        if name.startswith("word/") and name.endswith(".xml") and b"<w:" in raw[:4000] + raw[-4000:]:
            try:
                root = etree.fromstring(raw)
            except etree.XMLSyntaxError:
                continue
            if root.tag in _STORY_ROOTS:
                out[name] = root
    return out


def _place(el: etree._Element) -> str:
    parent = el.getparent()
    assert parent is not None
    if parent.tag == w("rPr"):
        grand = parent.getparent()
        return "mark" if grand is not None and grand.tag == w("pPr") else "run"
    if parent.tag == w("trPr"):
        return "row"
    if parent.tag == w("numPr"):
        return "numbering"
    return "content"


def _gone(el: etree._Element) -> bool:
    node: etree._Element = el
    parent = node.getparent()
    while parent is not None:
        node, parent = parent, parent.getparent()
    return node.tag not in _STORY_ROOTS


def _move_names(root: etree._Element) -> dict[etree._Element, str]:
    """Each move side's element -> the name of the innermost range of its side open there."""
    opened: dict[str, list[tuple[str, str]]] = {"from": [], "to": []}
    out: dict[etree._Element, str] = {}
    for el in root.iter():
        tag = el.tag
        if tag in _RANGES:
            opened[_RANGES[tag]].append((el.get(w("id")) or "", el.get(w("name")) or ""))
        elif tag in _RANGE_ENDS:
            side = opened[_RANGE_ENDS[tag]]
            for k in range(len(side) - 1, -1, -1):
                if side[k][0] == (el.get(w("id")) or ""):
                    del side[k]
                    break
        elif tag in (w("moveFrom"), w("moveTo")):
            side = opened["from" if tag == w("moveFrom") else "to"]
            if side:
                out[el] = side[-1][1]
    return out


def _unwrap(el: etree._Element) -> None:
    parent = el.getparent()
    assert parent is not None
    at = parent.index(el)
    for k, child in enumerate(list(el)):
        parent.insert(at + k, child)
    parent.remove(el)


def _remove(el: etree._Element) -> None:
    parent = el.getparent()
    if parent is not None:
        parent.remove(el)


def _undelete(el: etree._Element) -> None:
    for node in el.iter(w("delText"), w("delInstrText")):
        holder = node.getparent()
        while holder is not None and holder is not el and holder.tag not in (w("del"), w("moveFrom")):
            holder = holder.getparent()
        if holder is el:
            node.tag = w("t") if node.tag == w("delText") else w("instrText")


def _restore(change: etree._Element) -> None:
    parent = change.getparent()
    assert parent is not None
    old = next((c for c in change if isinstance(c.tag, str)), None)
    if change.tag == w("tblGridChange"):
        for c in [c for c in parent if c is not change]:
            parent.remove(c)
        for c in list(old) if old is not None else []:
            change.addprevious(copy.deepcopy(c))
        return
    keep = _KEEP.get(parent.tag, ())
    front = [c for c in parent if c.tag in keep and parent.tag in (w("rPr"), w("sectPr"))]
    back = [c for c in parent if c.tag in keep and parent.tag not in (w("rPr"), w("sectPr"))]
    restored = [copy.deepcopy(c) for c in old] if old is not None else []
    for c in [c for c in parent if c is not change]:
        parent.remove(c)
    for c in [*front, *restored, *back]:
        change.addprevious(c)


def _join(p: etree._Element) -> None:
    nxt = p.getnext()
    while nxt is not None and nxt.tag not in (w("p"), w("tbl"), w("sdt"), w("sectPr"), w("customXml")):
        nxt = nxt.getnext()
    if nxt is None or nxt.tag != w("p"):
        return
    ppr, ppr2 = p.find(w("pPr")), nxt.find(w("pPr"))
    at = 1 if ppr2 is not None else 0
    between = []
    node = p.getnext()
    while node is not None and node is not nxt:
        between.append(node)
        node = node.getnext()
    for k, child in enumerate([c for c in p if c.tag != w("pPr")] + between):
        nxt.insert(at + k, child)
    sect = ppr.find(w("sectPr")) if ppr is not None else None
    if sect is not None:
        if ppr2 is None:
            ppr2 = etree.SubElement(nxt, w("pPr"))
            nxt.insert(0, ppr2)
        if ppr2.find(w("sectPr")) is None:
            change = ppr2.find(w("pPrChange"))
            if change is not None:
                change.addprevious(sect)
            else:
                ppr2.append(sect)
    _remove(p)


def _remove_row(tr: etree._Element) -> None:
    table = tr.getparent()
    _remove(tr)
    if table is not None and table.find(w("tr")) is None:
        holder = table.getparent()
        _remove(table)
        if holder is not None and holder.tag == w("tc") and holder.find(w("p")) is None:
            etree.SubElement(holder, w("p"))


def _custom_xml(root: etree._Element, start: etree._Element, accept: bool) -> None:
    """The markup a region's custom XML elements' tags are goes (their content stays) when an
    insertion of it is rejected or a deletion accepted; the markers go either way."""
    end_tag, inserts = CUSTOM_XML[start.tag]
    nodes = list(root.iter())
    at = nodes.index(start)
    end = next(
        (n for n in nodes[at + 1 :] if n.tag == end_tag and n.get(w("id")) == start.get(w("id"))), None
    )
    stop = nodes.index(end) if end is not None else len(nodes)
    markup = [n for n in nodes[at + 1 : stop] if n.tag == w("customXml")]
    parent = start.getparent()
    if parent is not None and parent.tag == w("customXml"):
        markup.insert(0, parent)
    _remove(start)
    if end is not None:
        _remove(end)
    if accept != inserts:
        for m in reversed(markup):
            pr = m.find(w("customXmlPr"))
            if pr is not None:
                _remove(pr)
            _unwrap(m)


def decide_tree(root: etree._Element, verdict: Verdict) -> None:
    """Carry out Word's decisions on one story's tree (in place)."""
    names = _move_names(root)
    decided: dict[etree._Element, bool] = {}
    for el in root.iter(*ALL):
        v = verdict(el)
        if v is not None:
            decided[el] = v
    # a move is decided whole: every side of a decided move's name, both ways
    by_name: dict[str, bool] = {names[el]: v for el, v in decided.items() if names.get(el)}
    for el, name in names.items():
        if name in by_name:
            decided.setdefault(el, by_name[name])
    for el in list(root.iter(*_RANGES, *_RANGE_ENDS)):
        if el.tag in _RANGES and (el.get(w("name")) or "") in by_name:
            rid = el.get(w("id"))
            end = w("moveFromRangeEnd") if el.tag == w("moveFromRangeStart") else w("moveToRangeEnd")
            closing = next((e for e in el.itersiblings() if e.tag == end and e.get(w("id")) == rid), None)
            if closing is None:
                closing = next(
                    (e for e in root.iter(end) if e.get(w("id")) == rid and e.getparent() is not None), None
                )
            _remove(el)
            if closing is not None:
                _remove(closing)
    marks: list[tuple[etree._Element, bool]] = []
    rows: list[tuple[etree._Element, bool]] = []
    cells: list[etree._Element] = []
    for el, accept in decided.items():  # document order
        if el.getparent() is None or _gone(el):
            continue
        tag = el.tag
        if tag in PROPERTY:
            if not accept:
                _restore(el)
            _remove(el)
        elif tag in (w("numberingChange"), w("cellMerge")):
            _remove(el)
        elif tag in (w("cellIns"), w("cellDel")):
            if accept == (tag == w("cellDel")):
                cells.append(el)
            else:
                _remove(el)
        elif tag in CUSTOM_XML:
            _custom_xml(root, el, accept)
        else:
            place = _place(el)
            inserted = tag in (w("ins"), w("moveTo"))
            if place == "mark":
                marks.append((el, accept != inserted))
            elif place == "row":
                rows.append((el, accept != inserted))
            elif place == "numbering":
                _remove(el if accept else el.getparent())  # type: ignore[arg-type]
            elif inserted:
                _unwrap(el) if accept else _remove(el)
            elif accept:
                _remove(el)
            else:
                _undelete(el)
                _unwrap(el)
    for el in cells:  # a cell that goes: the row ends early (w:gridAfter), an empty row goes
        tc = el.getparent().getparent()  # type: ignore[union-attr]
        if tc is None or _gone(tc):
            continue
        tr = tc.getparent()
        span = tc.find(f"{w('tcPr')}/{w('gridSpan')}")
        width = int(span.get(w("val")) or 1) if span is not None else 1
        _remove(tc)
        if tr is None:
            continue
        if tr.find(w("tc")) is None:
            _remove_row(tr)
            continue
        trpr = tr.find(w("trPr"))
        if trpr is None:
            trpr = etree.Element(w("trPr"))
            tr.insert(0, trpr)
        after = trpr.find(w("gridAfter"))
        if after is None:
            after = etree.Element(w("gridAfter"))
            trpr.insert(0, after)
        after.set(w("val"), str(int(after.get(w("val")) or 0) + width))
    for el, goes in rows:
        tr = el.getparent().getparent()  # type: ignore[union-attr]
        if goes and tr is not None and not _gone(tr):
            _remove_row(tr)
        else:
            _remove(el)
    for el, joins in marks:
        if el.getparent() is None or _gone(el):
            continue
        p = el.getparent().getparent().getparent()  # type: ignore[union-attr]
        _remove(el)
        if joins and p is not None and p.tag == w("p"):
            _join(p)


def decide(data: bytes, verdict: Verdict) -> bytes:
    files = parts(data)
    for name, root in stories(files).items():
        decide_tree(root, verdict)
        files[name] = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(n, d)
    return buf.getvalue()


def _empty(el: etree._Element) -> bool:
    return el.tag in CONTENT and _place(el) == "content" and not any(isinstance(c.tag, str) for c in el)


def accept_all(data: bytes) -> bytes:
    return decide(data, lambda el: True)


def reject_all(data: bytes) -> bytes:
    return decide(data, lambda el: False)


def by_ids(data: bytes, ids: dict[str, bool]) -> bytes:
    return decide(data, lambda el: ids.get(el.get(w("id")) or ""))


def by_authors(data: bytes, authors: dict[str, bool]) -> bytes:
    return decide(data, lambda el: authors.get(el.get(w("author")) or ""))


def revisions(data: bytes, *, with_empty: bool = False) -> list[tuple[str, str, str | None, str | None]]:
    """(part, tag, id, author) of every revision element left (empty insertions and deletions,
    which change nothing, only ``with_empty``)."""
    out = []
    for name, root in stories(parts(data)).items():
        for el in root.iter(*ALL):
            if with_empty or not _empty(el):
                out.append((name, etree.QName(el).localname, el.get(w("id")), el.get(w("author"))))
    return out


_NOISE = re.compile(r"^\{[^}]*\}rsid|^\{http://schemas\.microsoft\.com/office/word/2010/wordml\}")


def _props(el: etree._Element | None, skip: tuple[str, ...] = ()) -> str:
    if el is None:
        return ""
    el = copy.deepcopy(el)
    for child in list(el):
        if child.tag in skip or not isinstance(child.tag, str):
            el.remove(child)
    for node in el.iter():
        for key in [k for k in node.attrib if _NOISE.match(str(k))]:
            del node.attrib[key]
    return etree.tostring(el, encoding="unicode") if len(el) else ""


def _text(node: etree._Element) -> str:
    tag = node.tag
    if tag == w("t"):
        return node.text or ""
    if tag == w("delText"):
        return "\u2326" + (node.text or "")  # (deleted text, still pending: marked)
    if tag == w("tab"):
        return "\t"
    if tag in (w("br"), w("cr")):
        return "\n"
    return ""


def reading(data: bytes) -> dict[str, list[tuple[str, list[tuple[str, str]]]]]:
    """Each story part's paragraphs as Word shows them: the paragraph's properties, and its
    text in runs of equal properties (each with its properties); deleted text still pending
    is marked, rows and cells are in order."""
    out: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {}
    for name, root in sorted(stories(parts(data)).items()):
        paras = []
        for p in root.iter(w("p")):
            runs: list[tuple[str, str]] = []
            for r in p.iter(w("r")):
                if next(a for a in r.iterancestors() if a.tag == w("p")) is not p:
                    continue  # (a text box's paragraph: read on its own)
                text = "".join(_text(n) for n in r.iter() if n is not r)
                if not text:
                    continue
                props = _props(r.find(w("rPr")))
                if runs and runs[-1][1] == props:
                    runs[-1] = (runs[-1][0] + text, props)
                else:
                    runs.append((text, props))
            ppr = p.find(w("pPr"))
            paras.append(
                (
                    _props(ppr, (w("rPr"),)) + "|" + _props(ppr.find(w("rPr")) if ppr is not None else None),
                    runs,
                )
            )
        out[name] = paras
    return out
