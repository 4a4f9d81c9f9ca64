"""``review`` is now ``redline_review``: this name works for one release (a generic top-level
name many packages use).  ``import review.job`` gives :mod:`redline_review.job` itself."""

from __future__ import annotations

import redline.compat as _compat

_compat.install()
_compat.warn_moved("review", "redline_review")
