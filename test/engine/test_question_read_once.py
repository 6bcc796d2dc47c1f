"""The look-alike checks read no record where the question alone decides (issue 16).

``revision.other_titled`` asks a record for the titled names it writes only when the
question names someone by title ("Mr Lee"): for every other question the answer is no
without reading the record, and the verdicts are those of reading it.
"""

from __future__ import annotations

from trace_ros.language import revision


def test_no_title_asked_reads_no_record() -> None:
    revision.other_titled.cache_clear()
    revision._titled.cache_clear()
    assert not revision.other_titled("Mrs Lee is in bed 4 now.", "Which bed is Dana in?")
    # only the question's titled names were read, not the record's
    assert revision._titled.cache_info().currsize == 1
    assert revision.other_titled("Mrs Lee is in bed 4 now.", "Which bed is Mr Lee in?")
    assert not revision.other_titled("Mr Lee is in bed 4 now.", "Which bed is Mr Lee in?")
    assert revision._titled.cache_info().currsize == 4
