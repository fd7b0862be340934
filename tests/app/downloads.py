"""The bytes behind a download button in an AppTest run (one helper for every page test).

AppTest keeps a download's bytes in its in-memory media store, addressed by the file id
in the button's URL.
"""

import gc

from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest


def download(at: AppTest, label: str) -> bytes:
    return _stored(at, next(b for b in at.get("download_button") if b.label == label))


def download_by_key(at: AppTest, key: str) -> bytes:
    return _stored(at, next(b for b in at.get("download_button") if b.proto.id.endswith(key)))


def _stored(at: AppTest, button) -> bytes:
    file_id = button.proto.url.rsplit("/", 1)[-1].split(".")[0]
    for store in (o for o in gc.get_objects() if isinstance(o, MemoryMediaFileStorage)):
        try:
            return store.get_file(file_id).content
        except Exception:  # another AppTest's store
            continue
    raise AssertionError(f"no stored file for {button.label!r}")
