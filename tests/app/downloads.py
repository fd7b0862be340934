"""The bytes behind a download button in an AppTest run (one helper for every page test).

AppTest keeps a download's bytes in its in-memory media store, addressed by the file id
in the button's URL. A button whose document is rendered on click (a callable ``data``,
as the Report page's exports) has no URL, only a deferred id: the helper runs the callable
the page registered under that id, as the server does when a browser clicks the button.
"""

import gc
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from streamlit.runtime.download_data_util import convert_data_to_bytes_and_infer_mime
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

# The callables of deferred downloads by id, recorded as pages register them: AppTest's
# media file manager lives only as long as one run (its mock runtime is dropped after
# the run), so a test reading a download afterwards cannot ask the manager for it.
_DEFERRED: OrderedDict[str, Callable[[], Any]] = OrderedDict()
_add_deferred = MediaFileManager.add_deferred


def _recording_add_deferred(self, callable_, *args, **kwargs) -> str:
    file_id = _add_deferred(self, callable_, *args, **kwargs)
    _DEFERRED[file_id] = callable_
    while len(_DEFERRED) > 256:
        _DEFERRED.popitem(last=False)
    return file_id


MediaFileManager.add_deferred = _recording_add_deferred  # type: ignore[method-assign]


def download(at: AppTest, label: str) -> bytes:
    return _stored(at, next(b for b in at.get("download_button") if b.label == label))


def download_by_key(at: AppTest, key: str) -> bytes:
    return _stored(at, next(b for b in at.get("download_button") if b.proto.id.endswith(key)))


def _stored(at: AppTest, button) -> bytes:
    if not button.proto.url:
        return _clicked(button.proto.deferred_file_id, button.label)
    file_id = button.proto.url.rsplit("/", 1)[-1].split(".")[0]
    with warnings.catch_warnings():
        # isinstance reads each object's __class__, which some of torch's lazy module
        # attributes answer with a deprecation warning
        warnings.simplefilter("ignore")
        stores = [o for o in gc.get_objects() if isinstance(o, MemoryMediaFileStorage)]
    for store in stores:
        try:
            return store.get_file(file_id).content
        except Exception:  # another AppTest's store
            continue
    raise AssertionError(f"no stored file for {button.label!r}")


def _clicked(deferred_id: str, label: str) -> bytes:
    """A deferred download's bytes, rendered as a click renders them: its callable run,
    its result converted as Streamlit converts it."""
    assert deferred_id, f"{label!r} has neither a URL nor a deferred document"
    assert deferred_id in _DEFERRED, f"no deferred document for {label!r}"
    data, _ = convert_data_to_bytes_and_infer_mime(
        _DEFERRED[deferred_id](), unsupported_error=AssertionError(f"{label!r}: not bytes")
    )
    return data
