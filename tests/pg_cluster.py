"""A throwaway PostgreSQL cluster for the history tests (Debian's ``postgresql`` package).

``.ci/run`` starts one before the suite and exports its URL as ``PRIVACY_REVIEW_TEST_PG_URL``;
without that variable the test session starts its own (``tests/conftest.py``). The cluster
lives in a temporary folder, listens on a Unix socket in that folder only (no TCP port to
collide with, nothing reachable from outside), trusts its local user, and is removed when
stopped. As root the server runs as the ``postgres`` user, which PostgreSQL requires.

Command line (stdlib only, for ``.ci/run``)::

    python3 tests/pg_cluster.py start FOLDER   # prints the SQLAlchemy URL
    python3 tests/pg_cluster.py stop FOLDER
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

ENV_URL = "PRIVACY_REVIEW_TEST_PG_URL"
INSTALL_HINT = (
    "the history tests need a PostgreSQL server: install Debian's package "
    "(apt-get install postgresql), or set PRIVACY_REVIEW_TEST_PG_URL to a server's URL"
)


def binaries() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: the newest Debian cluster version, else PATH."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if versions:
        return versions[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _as_server_user(argv: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root: hand the server to Debian's postgres user
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *argv]
    return argv


def start(folder: str | Path) -> str:
    """Create and start a cluster in ``folder``; return its SQLAlchemy URL."""
    bin_dir = binaries()
    if bin_dir is None:
        raise RuntimeError(INSTALL_HINT)
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        pw = pwd.getpwnam("postgres")
        os.chown(folder, pw.pw_uid, pw.pw_gid)
    data = folder / "data"
    try:
        _start(bin_dir, folder, data)
    except subprocess.CalledProcessError as exc:
        raise RuntimeError(
            f"PostgreSQL did not start in {folder}: {exc.stderr.decode(errors='replace').strip()}"
        ) from None
    return f"postgresql+psycopg://postgres@/postgres?host={folder}"


def _start(bin_dir: Path, folder: Path, data: Path) -> None:
    run: dict = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE}
    subprocess.run(
        _as_server_user(
            [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]
        ),
        **run,
    )
    subprocess.run(
        _as_server_user(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                f"-k {folder} -c listen_addresses='' -c fsync=off",
                "-l",
                str(folder / "server.log"),
                "-w",
                "start",
            ]
        ),
        **run,
    )


def stop(folder: str | Path) -> None:
    """Stop the cluster in ``folder`` (immediately: its data is thrown away) and remove it."""
    bin_dir = binaries()
    folder = Path(folder).resolve()
    if bin_dir is not None and (folder / "data").exists():
        subprocess.run(
            _as_server_user(
                [str(bin_dir / "pg_ctl"), "-D", str(folder / "data"), "-m", "immediate", "stop"]
            ),
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in {"start", "stop"}:
        sys.exit("usage: pg_cluster.py start|stop FOLDER")
    if sys.argv[1] == "start":
        print(start(sys.argv[2]))
    else:
        stop(sys.argv[2])
