"""The spellings a reply may use: field aliases, action words, container and summary keys.

Every reader of an entry looks a key up here (normalised by :func:`_norm`: case, ``_ - `` and
spaces ignored), so one table says which names mean ``anchor``, which actions mean a deletion,
and which fields change an edit's meaning when dropped.
"""

from __future__ import annotations

import functools
import re


def _norm(key: str) -> str:
    return key.lower().replace("_", "").replace("-", "").replace(" ", "")


_EDIT_FIELDS: dict[str, str] = {
    **dict.fromkeys(
        [
            "anchor",
            "find",
            "search",
            "oldtext",
            "original",
            "quote",
            "targettext",
            "oldstring",
            "oldstr",
            "originaltext",
            "anchortext",
            "findtext",
            "searchtext",
        ],
        "anchor",
    ),
    **dict.fromkeys(
        [
            "replacement",
            "replace",
            "newtext",
            "revised",
            "newstring",
            "suggestion",
            "newstr",
            "replacementtext",
            "revisedtext",
            "suggestedtext",
            "replacewith",
        ],
        "replacement",
    ),
    **dict.fromkeys(["rationale", "reason", "explanation", "comment", "justification"], "rationale"),
    **dict.fromkeys(["expectedmatches"], "expected_matches"),
    **dict.fromkeys(["section", "clause", "sectionnumber", "clausenumber"], "section"),
    **dict.fromkeys(["id", "editid"], "id"),
    **dict.fromkeys(["text", "paragraphtext", "newparagraph", "newparagraphs", "content"], "text"),
    **dict.fromkeys(["level", "levelchange", "indent"], "level"),
    **dict.fromkeys(["action", "op", "operation"], "action"),
    **dict.fromkeys(
        ["revisionid", "changeid", "trackedchangeid", "revid", "rid", "revisionnumber"], "revision_id"
    ),
    **dict.fromkeys(["author", "revisionauthor", "authorname", "changeauthor"], "author"),
    **dict.fromkeys(
        ["commentid", "parentid", "parentcommentid", "replyto", "inreplyto", "cid", "thread", "threadid"],
        "comment_id",
    ),
    **dict.fromkeys(["type", "kind", "edittype", "changetype"], "kind"),
    **dict.fromkeys(["format", "formatting", "formats"], "format"),
    **dict.fromkeys(
        ["cells", "values", "cellvalues", "celltexts", "rowcells", "rowvalues", "newcells"], "cells"
    ),
    **dict.fromkeys(
        ["target", "targetclause", "targetsection", "destination", "destinationclause"], "target"
    ),
    **dict.fromkeys(
        ["targetanchor", "targetquote", "destinationanchor", "destinationquote"], "target_anchor"
    ),
}
# Fields whose meaning an Edit cannot carry: dropping them would apply a different edit.
_MEANING_CHANGING = frozenset(
    [
        "position",
        "insertposition",
        "placement",
        "where",
        "insert",
        "insertafter",
        "insertbefore",
        "inserttext",
        "append",
        "prepend",
        "regex",
        "isregex",
        "useregex",
        "pattern",
        "occurrence",
        "occurrenceindex",
        "nth",
        "matchindex",
        "instance",
    ]
)
_DELETE_ACTIONS = frozenset(["delete", "remove"])
_REPLACE_ACTIONS = frozenset(["replace", "modify", "change", "edit", "update"])
_INSERT_ACTIONS = {
    **dict.fromkeys(["insert_after", "insertafter", "add_after", "insert_below"], "insert_after"),
    **dict.fromkeys(["insert_before", "insertbefore", "add_before", "insert_above"], "insert_before"),
}
_OTHER_ACTIONS = {
    **dict.fromkeys(
        ["accept", "approve", "accept_change", "accept_revision", "accept_changes", "accept_all"],
        "accept",
    ),
    **dict.fromkeys(
        ["reject", "decline", "reject_change", "reject_revision", "reject_changes", "reject_all"],
        "reject",
    ),
    **dict.fromkeys(["comment", "add_comment", "annotate", "new_comment"], "comment"),
    **dict.fromkeys(["reply", "respond", "reply_to_comment", "answer", "comment_reply"], "reply"),
    **dict.fromkeys(
        ["resolve", "mark_resolved", "resolve_comment", "resolve_thread", "done", "mark_done"],
        "resolve",
    ),
}
_FORMAT_ACTIONS = dict.fromkeys(
    ["format", "format_text", "format_clause", "formatting", "set_format", "apply_format", "style",
     "set_style", "apply_style", "restyle"],
    "format",
)  # fmt: skip
# Table-row actions (shared_schema.parse.rows); "insert_row" alone names no side (refused with
# why), the column actions are read so they can be refused ``unsupported`` with the reason.
_ROW_ACTIONS = {
    **dict.fromkeys(
        ["insert_row_after", "insertrowafter", "add_row_after", "insert_row_below", "add_row_below",
         "insert_table_row_after", "new_row_after"],
        "insert_row_after",
    ),
    **dict.fromkeys(
        ["insert_row_before", "insertrowbefore", "add_row_before", "insert_row_above", "add_row_above",
         "insert_table_row_before", "new_row_before"],
        "insert_row_before",
    ),
    **dict.fromkeys(
        ["delete_row", "deleterow", "remove_row", "delete_table_row", "remove_table_row"], "delete_row"
    ),
    **dict.fromkeys(["insert_row", "insertrow", "add_row", "insert_table_row", "new_row"], "insert_row"),
    **dict.fromkeys(
        ["insert_column", "insert_column_after", "insert_column_before", "add_column", "insert_col"],
        "insert_column",
    ),
    **dict.fromkeys(["delete_column", "remove_column", "delete_col"], "delete_column"),
}  # fmt: skip
_OTHER_ACTIONS.update(_ROW_ACTIONS)
# The clause moves (shared_schema.parse.moves), read as the other actions are.
_MOVE_ACTIONS = {
    **dict.fromkeys(
        ["move_after", "moveafter", "move_below", "move_clause_after", "move_to_after"], "move_after"
    ),
    **dict.fromkeys(
        ["move_before", "movebefore", "move_above", "move_clause_before", "move_to_before"], "move_before"
    ),
}
_OTHER_ACTIONS.update(_MOVE_ACTIONS)
_ACTION_WORDS = re.compile(
    r"insert|add|append|prepend|comment|move|format|highlight|split|merge|annotat|note"
)
_EDIT_CONTAINERS = frozenset(
    ["edits", "redlines", "changes", "proposededits", "proposedchanges", "suggestededits"]
)
_REVISION_KEYS = frozenset(["revision", "documentrevision", "docrevision", "revisionid"])

_SUMMARY_KEYS = frozenset(["summary", "overview", "executivesummary", "summarytext", "tldr"])
_POINTS_KEYS = frozenset(["points", "keypoints", "highlights", "findings", "keyfindings", "mainpoints"])
_POINT_FIELDS: dict[str, str] = {
    **dict.fromkeys(["title", "heading", "name", "topic", "header", "label"], "title"),
    **dict.fromkeys(
        [
            "text",
            "body",
            "detail",
            "details",
            "description",
            "content",
            "explanation",
            "point",
            "summary",
        ],
        "text",
    ),
    **dict.fromkeys(
        [
            "quotes",
            "quote",
            "citation",
            "citations",
            "supportingquotes",
            "evidence",
            "excerpts",
            "sourcequotes",
        ],
        "quotes",
    ),
}


@functools.cache
def _key_pattern(names: frozenset[str]) -> re.Pattern[str]:
    """A regex for a quoted JSON key spelling one of ``names`` in any case, with _ - or space
    (compiled when first needed: only broken JSON is searched with it, and compiling takes as
    long as parsing a reply)."""
    spelled = ("[_\\- ]?".join(re.escape(ch) for ch in name) for name in sorted(names))
    return re.compile('"(?:' + "|".join(spelled) + ')"[ \\t\\r\\n]*:', re.IGNORECASE)
