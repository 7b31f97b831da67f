"""Bringing work done elsewhere home: a platform's files (MTurk's batch results, Prolific's
export) read, checked and stored as studies harness reads like any other (docs/archives.md).

Builds on `spec`, `render` (reading harness's own answer fields) and `store`; `commands/`
calls it.
"""

from harness.archives.batch_import import BatchImport, import_mturk_batch
from harness.archives.mapping import BatchMapping, mapping_for

__all__ = ["BatchImport", "BatchMapping", "import_mturk_batch", "mapping_for"]
