"""A data root in object storage (s3://, gs://, az://, memory://, any fsspec URL).

The pipeline's code reads and writes a local working copy of the data root; with a remote
data root configured, each asset first pulls the artefacts it reads and then pushes the ones
it wrote. Artefacts are content- or version-addressed, so a file already present with the
same size is not transferred again. JSON files (manifests, index markers, evaluations) are
the completion marks of the artefacts beside them: they are always refreshed on pull and
pushed last, so a reader never sees a manifest before its data. Each object is uploaded
whole (an object store's put is atomic), which keeps the write-then-rename guarantee.

Configuration only: ``FINCHUNK_DATA_URL`` (or the ``data_url`` of the pipeline resource),
plus the fsspec implementation for the scheme (``pip install s3fs`` / ``gcsfs`` / ``adlfs``)
and its usual credentials. ``FINCHUNK_DATA`` then names the local working copy.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .storage import atomic_path


@dataclass
class RemoteMirror:
    url: str
    local_root: Path

    def __post_init__(self):
        import fsspec

        self.fs, self.root = fsspec.core.url_to_fs(self.url.rstrip("/"))
        self.local_root = Path(self.local_root)

    def _remote(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def _remote_files(self, rel: str) -> dict[str, int]:
        """relative path -> size of every remote file at or under ``rel``."""
        target = self._remote(rel)
        if not self.fs.exists(target):
            return {}
        if self.fs.isfile(target):
            return {rel: int(self.fs.info(target)["size"])}
        out = {}
        for path, info in self.fs.find(target, detail=True).items():
            if info.get("type") == "file":
                out[path[len(self.root):].lstrip("/")] = int(info["size"])
        return out

    def _local_files(self, rel: str) -> list[str]:
        target = self.local_root / rel
        if target.is_file():
            return [rel]
        if not target.is_dir():
            return []
        return sorted(str(p.relative_to(self.local_root)) for p in target.rglob("*")
                      if p.is_file() and not p.name.endswith(".tmp"))

    def pull(self, *rels: str) -> int:
        """Download what is missing or different locally; returns the number of files fetched."""
        fetched = 0
        for rel in rels:
            for path, size in sorted(self._remote_files(rel).items(), key=lambda kv: kv[0].endswith(".json")):
                local = self.local_root / path
                if local.exists() and local.stat().st_size == size and not path.endswith(".json"):
                    continue
                with atomic_path(local) as tmp:
                    self.fs.get_file(self._remote(path), str(tmp))
                fetched += 1
        return fetched

    def push(self, *rels: str) -> int:
        """Upload what is missing or different remotely, JSON completion marks last."""
        sent = 0
        for rel in rels:
            remote = self._remote_files(rel)
            files = sorted(self._local_files(rel), key=lambda p: p.endswith(".json"))
            for path in files:
                size = (self.local_root / path).stat().st_size
                if remote.get(path) == size and not path.endswith(".json"):
                    continue
                parent = self._remote(str(Path(path).parent))
                self.fs.makedirs(parent, exist_ok=True)
                self.fs.put_file(str(self.local_root / path), self._remote(path))
                sent += 1
        return sent


def mirror_from_env(local_root: Path, url: str | None = None) -> RemoteMirror | None:
    url = url or os.environ.get("FINCHUNK_DATA_URL") or ""
    return RemoteMirror(url, local_root) if url else None
