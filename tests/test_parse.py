"""Behaviour of the tolerant reply parser on replies shaped the way models really write them."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared_schema import Edit, EditBatch, SummaryPoint, SummaryReply
from shared_schema.parse import ParseLimits, parse_edit_reply, parse_summary_reply

TERM = {"anchor": "thirty (30) days", "replacement": "sixty (60) days"}
CAP = {
    "anchor": "shall not exceed the fees paid in the twelve (12) months",
    "replacement": "shall not exceed twice the fees paid in the twelve (12) months",
    "rationale": "The cap is too low for a supplier of critical services.",
    "section": "9.2",
}
LAW = {"anchor": "laws of the State of New York", "replacement": "laws of England and Wales"}


def edits_of(text: str | bytes, limits: ParseLimits | None = None) -> EditBatch:
    batch = parse_edit_reply(text, limits)
    assert batch is not None, "expected the reply to parse"
    batch.model_dump_json()  # every result must be reportable as JSON
    return batch


def pairs(batch: EditBatch) -> list[tuple[str, str]]:
    return [(e.anchor, e.replacement) for e in batch.edits]


def reasons(batch: EditBatch | SummaryReply) -> dict[int, str]:
    return {entry.index: entry.reason for entry in batch.invalid}


def fenced(payload: Any, tag: str = "json", marker: str = "```") -> str:
    return f"{marker}{tag}\n{json.dumps(payload, indent=2)}\n{marker}"


# ---------------------------------------------------------------------------------------------
# Fenced and prose-wrapped replies


class TestFencedReplies:
    def test_it_reads_a_json_fence_inside_a_chatty_reply(self) -> None:
        reply = (
            "Here are the proposed edits to the Master Services Agreement:\n\n"
            f"{fenced({'edits': [TERM, CAP]})}\n\n"
            "Let me know if you'd like me to adjust the liability cap further."
        )
        batch = edits_of(reply)
        assert pairs(batch) == [(TERM["anchor"], TERM["replacement"]), (CAP["anchor"], CAP["replacement"])]
        assert batch.edits[1].rationale == CAP["rationale"]
        assert batch.edits[1].section == "9.2"
        assert batch.invalid == []
        assert "removed a ```json fence" in batch.notes
        assert "took the JSON from surrounding prose" in batch.notes

    def test_it_reads_a_fence_tagged_in_capitals_with_a_compact_body(self) -> None:
        reply = (
            "I reviewed the termination clause. Proposed redline:\n"
            "```JSON\n" + json.dumps({"edits": [TERM]}) + "\n```"
        )
        assert pairs(edits_of(reply)) == [(TERM["anchor"], TERM["replacement"])]

    def test_a_fence_that_is_the_whole_reply_needs_no_prose_note(self) -> None:
        batch = edits_of(fenced({"edits": [LAW]}))
        assert batch.notes == ["removed a ```json fence"]

    def test_it_prefers_the_fenced_block_over_json_in_the_prose(self) -> None:
        reply = (
            'Each edit looks like {"anchor": "old words", "replacement": "new words"}.\n'
            "Here is the batch:\n" + fenced({"edits": [TERM]})
        )
        assert pairs(edits_of(reply)) == [(TERM["anchor"], TERM["replacement"])]

    def test_it_skips_fences_that_hold_no_json(self) -> None:
        reply = (
            "Run this to apply them:\n```bash\nredline apply contract.docx edits.json\n```\n"
            "The edits:\n" + fenced([LAW])
        )
        assert pairs(edits_of(reply)) == [(LAW["anchor"], LAW["replacement"])]

    def test_an_unclosed_fence_still_yields_its_json(self) -> None:
        reply = "Sure! Here you go:\n```json\n" + json.dumps({"edits": [TERM]}) + "\n"
        batch = edits_of(reply)
        assert pairs(batch) == [(TERM["anchor"], TERM["replacement"])]
        assert "the closing fence was missing" in batch.notes


class TestProseWrappedReplies:
    def test_it_finds_json_between_sentences_without_a_fence(self) -> None:
        reply = (
            "Based on your instructions, I propose the following changes: "
            + json.dumps({"edits": [TERM, LAW]})
            + " These keep the rest of the agreement intact."
        )
        batch = edits_of(reply)
        assert len(batch.edits) == 2
        assert batch.notes == ["took the JSON from surrounding prose"]

    def test_braces_and_brackets_in_the_prose_do_not_derail_it(self) -> None:
        reply = (
            "In clause {4.2} the notice period (see [Schedule A] and [1]) is short; "
            "the {Effective Date} placeholder stays. {} [] Edits: "
            + json.dumps([TERM])
            + " -- end of {draft}."
        )
        assert pairs(edits_of(reply)) == [(TERM["anchor"], TERM["replacement"])]

    def test_a_json_example_in_the_prose_loses_to_the_object_that_holds_edits(self) -> None:
        reply = 'Config used: {"model": "gpt-4o", "temperature": 0}. Result: ' + json.dumps({"edits": [LAW]})
        assert pairs(edits_of(reply)) == [(LAW["anchor"], LAW["replacement"])]

    def test_xml_style_tags_around_the_json_are_prose(self) -> None:
        reply = "<edits>\n" + json.dumps([TERM]) + "\n</edits>"
        assert pairs(edits_of(reply)) == [(TERM["anchor"], TERM["replacement"])]

    def test_the_same_reply_as_bytes_parses_the_same(self) -> None:
        reply = "Proposed edits:\n" + fenced({"edits": [TERM]}) + "\nThanks!"
        assert edits_of(reply.encode("utf-8")).edits == edits_of(reply).edits


class TestWrongFenceTags:
    @pytest.mark.parametrize(
        ("tag", "marker", "note"),
        [
            ("python", "```", "removed a ```python fence"),
            ("yaml", "```", "removed a ```yaml fence"),
            ("", "~~~", "removed a ~~~ fence"),
            ("javascript", "```", "removed a ```javascript fence"),
            ("", "```", "removed a ``` fence"),
            ("json", "````", "removed a ```json fence"),
        ],
    )
    def test_it_reads_json_whatever_the_fence_says(self, tag: str, marker: str, note: str) -> None:
        reply = "Here are my suggested redlines:\n" + fenced({"edits": [CAP]}, tag, marker) + "\n"
        batch = edits_of(reply)
        assert pairs(batch) == [(CAP["anchor"], CAP["replacement"])]
        assert note in batch.notes

    def test_it_reads_a_python_assignment_holding_json(self) -> None:
        reply = "```python\nedits = " + json.dumps([TERM]) + "\n```"
        assert pairs(edits_of(reply)) == [(TERM["anchor"], TERM["replacement"])]

    def test_a_fence_indented_inside_a_list_item_is_found(self) -> None:
        reply = "1. The edits:\n\n   ```json\n   " + json.dumps([LAW]) + "\n   ```\n"
        assert pairs(edits_of(reply)) == [(LAW["anchor"], LAW["replacement"])]


class TestByteOrderMarksAndBytes:
    def test_a_bom_on_a_string_is_removed_and_noted(self) -> None:
        batch = edits_of("\ufeff" + json.dumps({"edits": [TERM]}))
        assert len(batch.edits) == 1
        assert "removed a byte-order mark" in batch.notes

    def test_a_utf8_bom_on_bytes_is_removed_and_noted(self) -> None:
        batch = edits_of(b"\xef\xbb\xbf" + json.dumps({"edits": [TERM]}).encode())
        assert len(batch.edits) == 1
        assert "removed a byte-order mark" in batch.notes

    def test_utf16_bytes_with_a_bom_are_decoded(self) -> None:
        batch = edits_of(
            json.dumps({"edits": [{"anchor": "Käufer", "replacement": "Kunde"}]}).encode("utf-16")
        )
        assert pairs(batch) == [("Käufer", "Kunde")]

    def test_invalid_utf8_refuses_only_the_entries_that_hold_it(self) -> None:
        data = (
            b'{"edits": [{"anchor": "Lieferant \xff", "replacement": "x"}, '
            + json.dumps(LAW).encode()
            + b"]}"
        )
        batch = edits_of(data)
        assert pairs(batch) == [(LAW["anchor"], LAW["replacement"])]
        assert "not valid UTF-8" in reasons(batch)[0]
        assert any("invalid UTF-8" in note for note in batch.notes)


# ---------------------------------------------------------------------------------------------
# Containers


class TestContainers:
    def test_a_bare_list_is_a_batch(self) -> None:
        batch = edits_of(json.dumps([TERM, LAW]))
        assert len(batch.edits) == 2
        assert "read a bare list of edits" in batch.notes

    def test_a_single_edit_object_is_a_batch_of_one(self) -> None:
        reply = "Only one change is needed:\n" + fenced(CAP)
        batch = edits_of(reply)
        assert pairs(batch) == [(CAP["anchor"], CAP["replacement"])]
        assert "read a single edit object as a batch of one" in batch.notes

    @pytest.mark.parametrize("key", ["redlines", "changes", "proposed_edits", "proposedEdits"])
    def test_it_reads_the_list_under_a_legacy_container_name(self, key: str) -> None:
        batch = edits_of(json.dumps({key: [TERM, LAW]}))
        assert len(batch.edits) == 2
        assert f"read the edits from {key!r}" in batch.notes

    def test_the_revision_the_model_read_is_kept(self) -> None:
        batch = edits_of(json.dumps({"revision": "rev-7f3a", "edits": [TERM]}))
        assert batch.revision == "rev-7f3a"

    def test_other_top_level_fields_are_ignored_with_a_note(self) -> None:
        reply = json.dumps({"summary": "Two changes.", "edits": [TERM], "confidence": 0.8})
        batch = edits_of(reply)
        assert len(batch.edits) == 1
        assert "ignored top-level fields 'summary', 'confidence'" in batch.notes

    def test_a_wrapper_object_around_the_batch_is_opened(self) -> None:
        batch = edits_of(json.dumps({"response": {"edits": [TERM], "revision": "r2"}}))
        assert len(batch.edits) == 1
        assert batch.revision == "r2"
        assert "took the edits from inside 'response'" in batch.notes

    def test_edit_objects_in_separate_fences_are_joined_in_order(self) -> None:
        reply = (
            "**Edit 1 – payment terms**\n" + fenced(TERM) + "\n\n"
            "**Edit 2 – governing law**\n" + fenced(LAW) + "\n\n"
            "**Edit 3 – liability**\n" + fenced(CAP) + "\n"
        )
        batch = edits_of(reply)
        assert [e.anchor for e in batch.edits] == [TERM["anchor"], LAW["anchor"], CAP["anchor"]]
        assert "joined 3 separate JSON objects into one list" in batch.notes
        assert "removed 3 ```json fences" in batch.notes

    def test_of_two_batches_the_first_is_used_and_the_other_noted(self) -> None:
        reply = fenced({"edits": [TERM]}) + "\nOr, more aggressively:\n" + fenced({"edits": [CAP]})
        batch = edits_of(reply)
        assert pairs(batch) == [(TERM["anchor"], TERM["replacement"])]
        assert any("ignored 1 other" in note for note in batch.notes)

    def test_two_different_lists_in_one_object_are_ambiguous(self) -> None:
        assert parse_edit_reply(json.dumps({"edits": [TERM], "changes": [LAW]})) is None

    def test_one_object_per_line_is_joined_into_a_list(self) -> None:
        reply = "\n".join(json.dumps(e) for e in (TERM, LAW, CAP))
        assert [e.anchor for e in edits_of(reply).edits] == [TERM["anchor"], LAW["anchor"], CAP["anchor"]]

    def test_a_single_object_under_the_container_key_is_a_list_of_one(self) -> None:
        batch = edits_of(json.dumps({"edits": TERM}))
        assert len(batch.edits) == 1


class TestExplicitlyEmptyAnswers:
    @pytest.mark.parametrize(
        "reply",
        [
            '{"edits": []}',
            "[]",
            'No changes are needed; the clause already reflects your position.\n```json\n{"edits": []}\n```',
            '{"edits": [], "revision": "r1"}',
            '{"edits": null}',
        ],
    )
    def test_an_empty_list_is_a_valid_answer(self, reply: str) -> None:
        batch = edits_of(reply)
        assert batch.edits == []
        assert batch.invalid == []


# ---------------------------------------------------------------------------------------------
# Legacy field names and action values


class TestLegacyFields:
    @pytest.mark.parametrize(
        "alias", ["find", "search", "old_text", "oldText", "original", "quote", "target_text"]
    )
    def test_every_legacy_anchor_name_becomes_anchor(self, alias: str) -> None:
        batch = edits_of(json.dumps({"edits": [{alias: "Buyer", "replacement": "Customer"}]}))
        assert pairs(batch) == [("Buyer", "Customer")]
        assert f"renamed field {alias!r} to 'anchor' in 1 edit" in batch.notes

    @pytest.mark.parametrize(
        "alias", ["replace", "new_text", "newText", "revised", "new_string", "suggestion"]
    )
    def test_every_legacy_replacement_name_becomes_replacement(self, alias: str) -> None:
        batch = edits_of(json.dumps([{"anchor": "Buyer", alias: "Customer"}]))
        assert pairs(batch) == [("Buyer", "Customer")]
        assert f"renamed field {alias!r} to 'replacement' in 1 edit" in batch.notes

    def test_renames_are_counted_across_edits(self) -> None:
        reply = json.dumps(
            [
                {"find": a, "replace": b}
                for a, b in [("Buyer", "Customer"), ("Seller", "Supplier"), ("Goods", "Products")]
            ]
        )
        batch = edits_of(reply)
        assert len(batch.edits) == 3
        assert "renamed field 'find' to 'anchor' in 3 edits" in batch.notes
        assert "renamed field 'replace' to 'replacement' in 3 edits" in batch.notes

    def test_a_gpt_style_reply_with_old_and_new_text_is_read(self) -> None:
        reply = (
            "Below are the modifications in JSON format:\n\n```json\n"
            "{\n"
            '  "changes": [\n'
            '    {"id": 1, "clause": "7.1", "old_text": "terminate this Agreement for convenience",\n'
            '     "new_text": "terminate this Agreement for convenience on ninety (90) days notice",\n'
            '     "reason": "Adds a notice period."},\n'
            '    {"id": 2, "clause": 12, "oldText": "in its sole discretion",\n'
            '     "newText": "acting reasonably",\n'
            '     "explanation": "Limits unfettered discretion."}\n'
            "  ]\n"
            "}\n```\n"
            "These changes balance the parties' positions."
        )
        batch = edits_of(reply)
        assert [(e.id, e.section, e.rationale) for e in batch.edits] == [
            ("1", "7.1", "Adds a notice period."),
            ("2", "12", "Limits unfettered discretion."),
        ]
        assert "converted a numeric 'id' to text in 2 edits" in batch.notes
        assert "renamed field 'clause' to 'section' in 2 edits" in batch.notes

    def test_str_replace_tool_names_are_read(self) -> None:
        batch = edits_of(json.dumps([{"old_string": "Buyer", "new_string": "Customer"}]))
        assert pairs(batch) == [("Buyer", "Customer")]

    def test_notes_stay_bounded_when_every_entry_invents_fields(self) -> None:
        batch = edits_of(json.dumps([{**TERM, f"x{i}": 1} for i in range(300)]))
        assert len(batch.edits) == 300
        assert len(batch.notes) == 100
        assert batch.notes[-1] == "and 202 more notes"

    def test_aliases_with_the_same_value_are_accepted(self) -> None:
        batch = edits_of(json.dumps([{"anchor": "Buyer", "find": "Buyer", "replacement": "Customer"}]))
        assert pairs(batch) == [("Buyer", "Customer")]

    def test_aliases_that_disagree_refuse_the_entry(self) -> None:
        batch = edits_of(json.dumps([{"anchor": "Buyer", "find": "Seller", "replacement": "x"}, LAW]))
        assert len(batch.edits) == 1
        assert "intent is unknown" in reasons(batch)[0]

    def test_unknown_fields_are_dropped_with_a_note(self) -> None:
        reply = json.dumps([{**TERM, "confidence": "high", "category": "commercial"}])
        batch = edits_of(reply)
        assert len(batch.edits) == 1
        assert "dropped unknown field 'confidence' in 1 edit" in batch.notes

    def test_a_count_field_is_not_read_as_expected_matches(self) -> None:
        batch = edits_of(json.dumps([{"anchor": "Buyer", "replacement": "Customer", "count": 4}]))
        assert batch.edits[0].expected_matches is None
        assert "dropped unknown field 'count' in 1 edit" in batch.notes

    def test_camel_case_expected_matches_is_renamed(self) -> None:
        batch = edits_of(json.dumps([{"anchor": "Buyer", "replacement": "Customer", "expectedMatches": 4}]))
        assert batch.edits[0].expected_matches == 4

    @pytest.mark.parametrize("field", ["position", "insert_after", "regex", "occurrence"])
    def test_fields_whose_loss_would_change_the_edit_refuse_it(self, field: str) -> None:
        batch = edits_of(json.dumps([{**TERM, field: "after"}]))
        assert batch.edits == []
        assert field in reasons(batch)[0]


class TestLegacyActions:
    @pytest.mark.parametrize("action", ["delete", "remove", "DELETE", "Remove"])
    def test_a_delete_action_means_an_empty_replacement(self, action: str) -> None:
        reply = json.dumps({"edits": [{"anchor": ", without limitation,", "action": action}]})
        batch = edits_of(reply)
        assert pairs(batch) == [(", without limitation,", "")]
        assert any("as an empty replacement in 1 edit" in note for note in batch.notes)

    def test_a_delete_op_with_an_empty_replacement_is_fine(self) -> None:
        batch = edits_of(json.dumps([{"op": "delete", "find": "irrevocably", "replace": ""}]))
        assert pairs(batch) == [("irrevocably", "")]

    def test_delete_with_a_replacement_text_is_a_conflict(self) -> None:
        batch = edits_of(json.dumps([{"action": "delete", "anchor": "a", "replacement": "b"}, TERM]))
        assert len(batch.edits) == 1
        assert "delete" in reasons(batch)[0]

    @pytest.mark.parametrize("action", ["replace", "modify", "change", "edit"])
    def test_replace_style_actions_are_plain_edits(self, action: str) -> None:
        batch = edits_of(json.dumps([{**TERM, "action": action}]))
        assert pairs(batch) == [(TERM["anchor"], TERM["replacement"])]

    @pytest.mark.parametrize("action", ["insert", "move", "highlight"])
    def test_other_actions_are_unsupported(self, action: str) -> None:
        batch = edits_of(json.dumps([{**TERM, "action": action}, LAW]))
        assert pairs(batch) == [(LAW["anchor"], LAW["replacement"])]
        assert reasons(batch)[0].startswith("unsupported action")

    def test_a_comment_with_a_replacement_is_refused_not_guessed(self) -> None:
        # (comment is an action now: a comment on the anchor; with new text the intent is unknown)
        batch = edits_of(json.dumps([{**TERM, "action": "comment"}, LAW]))
        assert pairs(batch) == [(LAW["anchor"], LAW["replacement"])]
        assert "replacement" in reasons(batch)[0]

    def test_a_type_that_names_a_category_is_dropped(self) -> None:
        batch = edits_of(json.dumps([{**TERM, "type": "clarification"}]))
        assert len(batch.edits) == 1

    def test_a_type_that_names_an_insertion_refuses_the_entry(self) -> None:
        batch = edits_of(json.dumps([{**TERM, "type": "insertion"}]))
        assert batch.edits == []
        assert reasons(batch)[0].startswith("unsupported action")

    def test_action_and_type_that_disagree_refuse_the_entry(self) -> None:
        batch = edits_of(json.dumps([{**TERM, "action": "replace", "type": "delete"}]))
        assert "disagree" in reasons(batch)[0]


# ---------------------------------------------------------------------------------------------
# Partially invalid batches


class TestPartiallyInvalidBatches:
    def test_unusable_entries_are_listed_and_the_valid_ones_kept_in_order(self) -> None:
        entries: list[Any] = [
            TERM,
            {"replacement": "no anchor here"},
            {"anchor": "", "replacement": "x"},
            {"anchor": "   ", "replacement": "x"},
            {"anchor": 42, "replacement": "x"},
            {"anchor": ["a", "b"], "replacement": "x"},
            LAW,
            {"anchor": "Buyer"},
            {"anchor": "Buyer", "replacement": None},
            {"anchor": "Buyer", "replacement": 60},
            {"anchor": "Buyer", "replacement": "x", "expected_matches": 0},
            {"anchor": "Buyer", "replacement": "x", "expected_matches": -2},
            {"anchor": "Buyer", "replacement": "x", "expected_matches": 2.5},
            {"anchor": "Buyer", "replacement": "x", "expected_matches": "all"},
            {"anchor": "Buyer", "replacement": "x", "expected_matches": True},
            "replace Buyer with Customer",
            None,
            7,
            CAP,
        ]
        reply = "Here are the edits:\n" + fenced({"edits": entries}) + "\nDone."
        batch = edits_of(reply)
        assert [e.anchor for e in batch.edits] == [TERM["anchor"], LAW["anchor"], CAP["anchor"]]
        found = reasons(batch)
        assert sorted(found) == [i for i in range(len(entries)) if i not in (0, 6, 18)]
        assert "no anchor" in found[1]
        assert "empty" in found[2]
        assert "whitespace" in found[3]
        assert "number" in found[4]
        assert "list" in found[5]
        assert "no replacement" in found[7]
        assert "null" in found[8]
        assert "number" in found[9]
        for index in (10, 11, 12, 13, 14):
            assert "expected_matches" in found[index]
        assert "string" in found[15]
        assert batch.invalid[0].raw == {"replacement": "no anchor here"}

    def test_a_numeric_text_expected_matches_is_read_as_a_number(self) -> None:
        batch = edits_of(json.dumps([{"anchor": "Buyer", "replacement": "x", "expected_matches": "3"}]))
        assert batch.edits[0].expected_matches == 3

    def test_digits_from_other_scripts_are_not_a_count(self) -> None:
        batch = edits_of(json.dumps([{"anchor": "Buyer", "replacement": "x", "expected_matches": "²"}]))
        assert "expected_matches" in reasons(batch)[0]

    def test_a_float_section_is_refused_because_it_lost_its_digits(self) -> None:
        batch = edits_of(json.dumps([{**TERM, "section": 4.1}]))
        assert batch.edits == []
        assert "section" in reasons(batch)[0]

    def test_an_entry_whose_rationale_is_not_text_keeps_the_edit(self) -> None:
        batch = edits_of(json.dumps([{**TERM, "rationale": ["a", "b"]}]))
        assert batch.edits[0].rationale is None
        assert "dropped a rationale that was not text in 1 edit" in batch.notes


# ---------------------------------------------------------------------------------------------
# Real failures


class TestRealFailuresGiveNone:
    @pytest.mark.parametrize(
        "reply",
        [
            "",
            "   \n\t  ",
            "\ufeff",
            "I'm sorry, but I can't help with modifying this contract.",
            "The clause {4.2} refers to [Schedule A]; no JSON here {really}.",
            '{"foo": 1}',
            '["Buyer", "Seller"]',
            "[1, 2, 3]",
            '{"edits": "none"}',
            "```yaml\nedits:\n  - anchor: thirty days\n    replacement: sixty days\n```",
            "```python\n[{'anchor': 'thirty days', 'replacement': 'sixty days'}]\n```",
        ],
    )
    def test_replies_without_edits_give_none(self, reply: str) -> None:
        assert parse_edit_reply(reply) is None

    @pytest.mark.parametrize(
        "reply",
        [
            '{"edits": [{"anchor": "thirty (30) days", "replacement": "sixty (60) d',
            '{"edits": [{"anchor": "a", "replacement": "b"}, {"anchor": "c", "replace',
            '{"edits": [{"anchor": "a", "replacement": "b"}, {"anchor": "c", "replacement": "d"}',
            '```json\n{"edits": [{"anchor": "the {Company}", "replacement": "the [Supplier] [',
            'Here you go: [{"anchor": "a", "replacement": "b"},\n  {"anchor": "c"',
            '{"edits": [{"anchor": "a", "replacement": "b"}\n  {"anchor": "c", "replacement": "d"}]}',
        ],
    )
    def test_truncated_or_broken_json_gives_none_not_its_fragments(self, reply: str) -> None:
        assert parse_edit_reply(reply) is None

    def test_broken_json_in_its_only_fence_gives_none(self) -> None:
        reply = 'Proposed:\n```json\n{"edits": [{"anchor": "a" "replacement": "b"}]}\n```'
        assert parse_edit_reply(reply) is None


class TestSmallRepairs:
    def test_trailing_commas_are_removed_with_a_note(self) -> None:
        reply = '{\n  "edits": [\n    {"anchor": "a", "replacement": "b",},\n  ],\n}'
        batch = edits_of(reply)
        assert pairs(batch) == [("a", "b")]
        assert "removed 3 trailing commas" in batch.notes

    def test_comments_outside_strings_are_removed_with_a_note(self) -> None:
        reply = (
            '```jsonc\n{\n  // proposed by the reviewer\n  "revision": "r3",\n  "edits": [\n'
            '    {"anchor": "see http://example.com // here", "replacement": "b /* kept */"}, /* one */\n'
            "  ]\n}\n```"
        )
        batch = edits_of(reply)
        assert pairs(batch) == [("see http://example.com // here", "b /* kept */")]
        assert batch.revision == "r3"
        assert "removed 2 comments" in batch.notes

    def test_an_unclosed_block_comment_is_broken_json(self) -> None:
        assert parse_edit_reply('{"edits": [{"anchor": "a", "replacement": "b"} /* and') is None

    def test_raw_line_breaks_inside_strings_are_accepted_with_a_note(self) -> None:
        reply = '{"edits": [{"anchor": "first line\nsecond line", "replacement": "one line"}]}'
        batch = edits_of(reply)
        assert batch.edits[0].anchor == "first line\nsecond line"
        assert "accepted raw line breaks or tabs inside JSON strings" in batch.notes


# ---------------------------------------------------------------------------------------------
# Hostile replies


class TestHostileReplies:
    @pytest.mark.parametrize(
        "reply",
        [
            "[" * 100_000 + "]" * 100_000,
            '{"a":' * 100_000 + "1" + "}" * 100_000,
            '{"edits": [' + '{"x": [' * 50_000 + "1" + "]}" * 50_000 + "]}",
            "Here:\n```json\n" + "[" * 100_000 + "\n```",
        ],
    )
    def test_deep_nesting_gives_none_quickly(self, reply: str) -> None:
        started = time.process_time()
        assert parse_edit_reply(reply) is None
        assert time.process_time() - started < 2

    def test_nesting_beyond_max_depth_gives_none(self) -> None:
        deep: Any = "x"
        for _ in range(70):
            deep = {"k": deep}
        reply = json.dumps({"edits": [{**TERM, "extra": deep}]})
        assert parse_edit_reply(reply) is None
        assert parse_edit_reply(reply, ParseLimits(max_depth=100)) is not None

    def test_a_reply_over_max_chars_gives_none_at_once(self) -> None:
        reply = "x" * 50_000_001
        started = time.process_time()
        assert parse_edit_reply(reply) is None
        assert parse_edit_reply(b"x" * 4_001, ParseLimits(max_chars=1_000)) is None
        assert parse_edit_reply("x" * 1_001, ParseLimits(max_chars=1_000)) is None
        assert time.process_time() - started < 0.5

    def test_a_50_mb_reply_below_the_cap_parses_in_seconds(self) -> None:
        filler = "The Supplier shall perform the Services with reasonable care (see clause {4.2}). "
        reply = filler * (49_000_000 // len(filler)) + "\n" + fenced({"edits": [TERM, CAP]}) + "\n"
        assert 48_000_000 < len(reply) < 50_000_000
        started = time.process_time()
        batch = parse_edit_reply(reply)
        assert time.process_time() - started < 5
        assert batch is not None and len(batch.edits) == 2

    def test_a_50_mb_reply_of_tiny_values_gives_none_quickly(self) -> None:
        reply = "[" + ",".join(['{"a": 1}'] * 5_500_000) + "]"
        started = time.process_time()
        assert parse_edit_reply(reply) is None
        assert time.process_time() - started < 3

    def test_a_huge_anchor_is_read(self) -> None:
        anchor = "The Customer shall pay all invoices. " * 200_000
        batch = edits_of(json.dumps({"edits": [{"anchor": anchor, "replacement": "x"}]}))
        assert batch.edits[0].anchor == anchor

    def test_a_5000_digit_number_refuses_only_its_entry(self) -> None:
        digits = "9" * 5000
        reply = (
            '{"edits": [{"anchor": "Buyer", "replacement": "x", "expected_matches": '
            + digits
            + '}, {"anchor": "Seller", "replacement": "y", "id": '
            + digits
            + "}, "
            + json.dumps(LAW)
            + "]}"
        )
        batch = edits_of(reply)
        assert pairs(batch) == [(LAW["anchor"], LAW["replacement"])]
        assert "5000 digits" in reasons(batch)[0]
        assert 1 in reasons(batch)
        assert batch.invalid[0].raw["expected_matches"] == "<a number with 5000 digits>"

    def test_a_5000_digit_number_alone_gives_none(self) -> None:
        assert parse_edit_reply("1" * 5000) is None
        assert parse_edit_reply("[" + "1" * 5000 + "]") is None

    def test_a_duplicate_key_refuses_that_entry(self) -> None:
        reply = (
            '{"edits": [{"anchor": "Buyer", "replacement": "Customer", "anchor": "Seller"}, '
            + json.dumps(LAW)
            + "]}"
        )
        batch = edits_of(reply)
        assert pairs(batch) == [(LAW["anchor"], LAW["replacement"])]
        assert reasons(batch)[0] == "duplicate key 'anchor': the model's intent is unknown"
        assert batch.invalid[0].raw == {"anchor": "Buyer", "replacement": "Customer", "anchor (2)": "Seller"}

    def test_a_duplicated_container_key_gives_none(self) -> None:
        reply = '{"edits": [' + json.dumps(TERM) + '], "edits": [' + json.dumps(LAW) + "]}"
        assert parse_edit_reply(reply) is None

    @pytest.mark.parametrize(
        ("escaped", "code"),
        [("\\u0000", "U+0000"), ("\\u000b", "U+000B"), ("\\ufffe", "U+FFFE"), ("\\ud800", "U+D800")],
    )
    def test_characters_xml_cannot_hold_refuse_the_entry(self, escaped: str, code: str) -> None:
        reply = (
            '{"edits": [{"anchor": "Buyer' + escaped + '", "replacement": "x"}, '
            '{"anchor": "Seller", "replacement": "y' + escaped + '"}, ' + json.dumps(LAW) + "]}"
        )
        batch = edits_of(reply)
        assert pairs(batch) == [(LAW["anchor"], LAW["replacement"])]
        assert code in reasons(batch)[0] and "anchor" in reasons(batch)[0]
        assert code in reasons(batch)[1] and "replacement" in reasons(batch)[1]

    def test_a_raw_nul_in_the_reply_refuses_the_entry(self) -> None:
        batch = edits_of('[{"anchor": "Buy\x00er", "replacement": "x"}, ' + json.dumps(LAW) + "]")
        assert len(batch.edits) == 1
        assert "U+0000" in reasons(batch)[0]

    def test_edits_beyond_max_edits_are_refused_one_by_one(self) -> None:
        entries = [{"anchor": f"clause {i}", "replacement": f"section {i}"} for i in range(8)]
        batch = edits_of(json.dumps({"edits": entries}), ParseLimits(max_edits=5))
        assert [e.anchor for e in batch.edits] == [f"clause {i}" for i in range(5)]
        assert sorted(reasons(batch)) == [5, 6, 7]
        assert "limit of 5 edits" in reasons(batch)[5]
        assert batch.invalid[0].raw is None

    def test_the_default_cap_is_5000_edits(self) -> None:
        entries = [{"anchor": f"clause {i}", "replacement": "x"} for i in range(5_003)]
        batch = edits_of(json.dumps(entries))
        assert len(batch.edits) == 5_000
        assert sorted(reasons(batch)) == [5_000, 5_001, 5_002]

    def test_the_raw_value_of_a_huge_entry_is_truncated(self) -> None:
        anchor = "A" * 1_000_000 + "\x00"
        batch = edits_of(json.dumps([{"anchor": anchor, "replacement": "x"}]))
        raw = batch.invalid[0].raw
        assert isinstance(raw, dict) and len(raw["anchor"]) < 3_000

    def test_many_stray_brackets_in_prose_are_bounded(self) -> None:
        reply = '{"' * 200_000 + "\n" + fenced({"edits": [TERM]})
        started = time.process_time()
        batch = parse_edit_reply(reply)
        assert time.process_time() - started < 3
        assert batch is not None and len(batch.edits) == 1


# ---------------------------------------------------------------------------------------------
# Summaries


class TestSummaryReplies:
    def test_it_reads_a_canonical_summary_in_a_fence(self) -> None:
        payload = {
            "summary": "A five-year lease of office space with a break option.",
            "points": [
                {
                    "title": "Term",
                    "text": "Five years from the start date.",
                    "quotes": ["a term of five (5) years"],
                },
                {
                    "title": "Break",
                    "text": "Tenant may break at year 3.",
                    "quotes": ["on the third anniversary", "six months' notice"],
                },
            ],
        }
        reply = "Here is the summary you asked for:\n\n" + fenced(payload) + "\n\nHappy to expand."
        summary = parse_summary_reply(reply)
        assert summary is not None
        assert summary.summary == payload["summary"]
        assert [p.quotes for p in summary.points] == [
            ["a term of five (5) years"],
            ["on the third anniversary", "six months' notice"],
        ]

    @pytest.mark.parametrize("key", ["key_points", "highlights", "findings"])
    def test_legacy_names_for_points_are_read(self, key: str) -> None:
        summary = parse_summary_reply(json.dumps({"summary": "s", key: [{"title": "t", "text": "x"}]}))
        assert summary is not None and len(summary.points) == 1
        assert f"read the points from {key!r}" in summary.notes

    @pytest.mark.parametrize("key", ["quote", "citation"])
    def test_a_single_quote_becomes_a_list(self, key: str) -> None:
        reply = json.dumps(
            {"summary": "s", "points": [{"title": "Rent", "text": "x", key: "£50,000 per annum"}]}
        )
        summary = parse_summary_reply(reply)
        assert summary is not None
        assert summary.points[0].quotes == ["£50,000 per annum"]

    def test_a_citations_list_becomes_quotes(self) -> None:
        reply = json.dumps({"points": [{"title": "t", "citations": ["one", {"quote": "two", "page": 3}]}]})
        summary = parse_summary_reply(reply)
        assert summary is not None
        assert summary.points[0].quotes == ["one", "two"]

    def test_a_bare_list_of_points_has_an_empty_summary(self) -> None:
        summary = parse_summary_reply(
            "```json\n" + json.dumps([{"title": "t", "text": "x", "quotes": ["q"]}]) + "\n```"
        )
        assert summary is not None
        assert summary.summary == "" and len(summary.points) == 1
        assert "read a bare list of points, with no overall summary" in summary.notes

    def test_plain_string_points_have_no_quotes(self) -> None:
        reply = json.dumps({"summary": "Key terms.", "key_points": ["Term is five years.", "Rent is fixed."]})
        summary = parse_summary_reply(reply)
        assert summary is not None
        assert summary.points == [
            SummaryPoint(text="Term is five years."),
            SummaryPoint(text="Rent is fixed."),
        ]
        assert "read plain text as a point without quotes in 2 points" in summary.notes

    def test_unusable_points_are_listed_and_the_rest_kept(self) -> None:
        points: list[Any] = [
            {"title": "ok", "text": "fine", "quotes": ["q"]},
            {"title": 3, "text": "x"},
            {"title": "t", "quotes": [1, 2]},
            {"title": "t", "text": "nul\x00"},
            {"title": "a", "title_": "b"},
            42,
            {"title": " ", "quotes": []},
        ]
        summary = parse_summary_reply(json.dumps({"summary": "s", "points": points}))
        assert summary is not None
        assert [p.title for p in summary.points] == ["ok"]
        assert sorted(reasons(summary)) == [1, 2, 3, 4, 5, 6]
        assert "empty" in reasons(summary)[6]
        summary.model_dump_json()

    def test_a_duplicate_key_refuses_that_point(self) -> None:
        reply = '{"summary": "s", "points": [{"title": "a", "quotes": ["x"], "quotes": ["y"]}]}'
        summary = parse_summary_reply(reply)
        assert summary is not None and summary.points == []
        assert "duplicate key 'quotes'" in reasons(summary)[0]

    def test_a_summary_without_points_is_valid(self) -> None:
        summary = parse_summary_reply('The answer: {"summary": "Nothing unusual."}')
        assert summary is not None and summary.summary == "Nothing unusual."

    @pytest.mark.parametrize(
        "reply",
        ["", "No summary today.", '{"foo": 1}', '{"summary": "s", "points": [{"title": "a"', "[" * 50_000],
    )
    def test_replies_without_a_summary_give_none(self, reply: str) -> None:
        assert parse_summary_reply(reply) is None

    def test_an_edit_batch_is_not_a_summary(self) -> None:
        assert parse_summary_reply(json.dumps({"edits": [TERM]})) is None


# ---------------------------------------------------------------------------------------------
# Properties


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_gives_none_or_a_reportable_result(text: str) -> None:
    for result in (parse_edit_reply(text), parse_summary_reply(text)):
        assert result is None or isinstance(result, EditBatch | SummaryReply)
        if result is not None:
            result.model_dump_json()


JSONISH = st.sampled_from([*'{}[]":,\\ \n', "true", "null", "-1", "1e5", "```", '"anchor"', '"edits"'])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(JSONISH, st.text(max_size=3)), max_size=40).map("".join))
def test_json_like_noise_never_raises(text: str) -> None:
    for result in (parse_edit_reply(text), parse_summary_reply(text)):
        if result is not None:
            result.model_dump_json()


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_give_none_or_a_reportable_result(data: bytes) -> None:
    result = parse_edit_reply(data)
    if result is not None:
        result.model_dump_json()


CONTRACT_TEXT = st.lists(
    st.one_of(
        st.characters(blacklist_categories=("Cs", "Cc", "Cn")),
        st.sampled_from([*"{}[]`\"'\\\n\t“”’—§€", "```", "\\n", "{4.2}", '{"a": 1}']),
        st.sampled_from(["the Supplier", " shall ", "thirty (30) days", "Käufer", "条款"]),
    ),
    max_size=12,
).map("".join)
EDITS = st.builds(
    Edit,
    anchor=CONTRACT_TEXT.filter(lambda s: s.strip() != ""),
    replacement=CONTRACT_TEXT,
    rationale=st.none() | CONTRACT_TEXT,
    expected_matches=st.none() | st.integers(min_value=1, max_value=50),
    section=st.none() | st.sampled_from(["4.2", "(a)", "Payment Terms", "12"]),
    id=st.none() | st.text(alphabet="abc123-", min_size=1, max_size=6),
)
PROSE = st.sampled_from(
    [
        "",
        "Here are the proposed edits:",
        "I've reviewed the agreement. Clause {4.2} and [Schedule A] need changes.",
        "Let me know if you'd like me to adjust anything.",
        "Note: the {Effective Date} placeholder is unchanged; see [1].",
        "**Summary of changes** – see below. {} []",
        "<edits>",
        "The JSON:",
    ]
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(EDITS, max_size=6),
    shape=st.sampled_from(["edits", "redlines", "bare", "single"]),
    fence=st.sampled_from(["```json", "```JSON", "```python", "```yaml", "~~~", "```", None]),
    indent=st.sampled_from([None, 2]),
    ascii_only=st.booleans(),
    before=PROSE,
    after=PROSE,
)
def test_any_valid_batch_wrapped_in_prose_and_fences_parses_back(
    edits: list[Edit],
    shape: str,
    fence: str | None,
    indent: int | None,
    ascii_only: bool,
    before: str,
    after: str,
) -> None:
    entries = [e.model_dump(exclude_none=True) for e in edits]
    payload: Any = {shape: entries}
    if shape == "bare" or (shape == "single" and len(entries) != 1):
        payload = entries
    elif shape == "single":
        payload = entries[0]
    body = json.dumps(payload, indent=indent, ensure_ascii=ascii_only)
    if fence is not None:
        body = f"{fence}\n{body}\n{fence[:3]}"
    batch = parse_edit_reply(f"{before}\n{body}\n{after}")
    assert batch is not None
    assert batch.edits == edits
    assert batch.invalid == []


POINTS = st.builds(
    SummaryPoint,
    title=CONTRACT_TEXT,
    text=CONTRACT_TEXT,
    quotes=st.lists(CONTRACT_TEXT.filter(lambda s: s.strip() != ""), max_size=3, unique=True),
).filter(lambda p: bool(p.title.strip() or p.text.strip() or p.quotes))


@settings(max_examples=60, deadline=None)
@given(
    summary=CONTRACT_TEXT,
    points=st.lists(POINTS, min_size=1, max_size=4),
    fence=st.sampled_from(["```json", "~~~", None]),
    before=PROSE,
)
def test_any_valid_summary_wrapped_in_prose_parses_back(
    summary: str, points: list[SummaryPoint], fence: str | None, before: str
) -> None:
    body = json.dumps({"summary": summary, "points": [p.model_dump() for p in points]})
    if fence is not None:
        body = f"{fence}\n{body}\n{fence[:3]}"
    reply = parse_summary_reply(f"{before}\n{body}\nThanks.")
    assert reply is not None
    assert reply.summary == summary
    assert reply.points == points


def test_every_edit_knows_its_place_in_the_reply() -> None:
    batch = edits_of(json.dumps([TERM, {"anchor": ""}, CAP, 42, LAW]))
    assert [e.index for e in batch.edits] == [0, 2, 4]
    assert [i.index for i in batch.invalid] == [1, 3]
    # not a field: a model neither sends nor sees it, and it is no part of what the edit says
    assert "index" not in batch.edits[0].model_dump()
    assert "index" not in Edit.model_json_schema()["properties"]
    assert batch.edits[1] == Edit(**CAP) and Edit(**CAP).index is None
    assert batch.model_copy(deep=True).edits[2].index == 4
