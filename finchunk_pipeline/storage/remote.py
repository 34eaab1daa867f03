"""A data root in object storage (s3://, gs://, az://, memory://, any fsspec URL).

The pipeline's code reads and writes a local working copy of the data root; with a remote
data root configured, each asset first pulls the artefacts it reads and then pushes the ones
it wrote. Artefacts are content- or version-addressed, so a file already present with the
same size is not transferred again. JSON files (manifests, index markers, evaluations) are
the completion marks of the artefacts beside them: they are always refreshed on pull and
pushed last, so a reader never sees a manifest before its data. Mutable files (the DuckDB
facts store, JSON-lines history) are always refreshed too. Each object is uploaded whole
(an object store's put is atomic), which keeps the write-then-rename guarantee.

Configuration only (resource config of ``pipeline`` or environment):

| what | resource field | environment |
|---|---|---|
| URL | ``data_url`` | ``FINCHUNK_DATA_URL`` |
| endpoint (S3 API servers: MinIO, Ceph, moto, ...) | ``data_endpoint_url`` | ``FINCHUNK_DATA_ENDPOINT_URL`` |
| any fsspec storage option, JSON object (``key``, ``secret``, ``token``, ``client_kwargs``, ...) | ``data_storage_options`` | ``FINCHUNK_DATA_STORAGE_OPTIONS`` |

Credentials otherwise come from the scheme's usual chain (for S3: ``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY``, ``~/.aws``, an instance role). The fsspec implementation for the
scheme must be installed (``pip install -e '.[s3]'`` for s3://). A data root that cannot be
reached, a missing bucket or refused credentials fail at once with the URL in the message;
nothing is silently treated as empty.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..settings import Settings
from .files import atomic_path

MUTABLE_SUFFIXES = (".json", ".jsonl", ".duckdb")  # always refreshed on pull, always pushed
BUCKET_SCHEMES = ("s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "oss", "r2")


class RemoteStorageError(RuntimeError):
    """The remote data root is misconfigured or unreachable; the message names the URL."""


def _mutable(path: str) -> bool:
    return path.endswith(MUTABLE_SUFFIXES)


def parse_storage_options(text: str | dict | None, where: str) -> dict:
    if not text:
        return {}
    if isinstance(text, dict):
        return dict(text)
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{where}: storage options must be a JSON object, got {text[:80]!r}: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{where}: storage options must be a JSON object, got {type(value).__name__}")
    return value


def redact(options: dict) -> dict:
    """Storage options as they may appear in a message: no secrets."""
    hidden = ("secret", "token", "password", "key", "credential", "sas")
    out = {}
    for k, v in options.items():
        if isinstance(v, dict):
            out[k] = redact(v)
        elif any(h in k.lower() for h in hidden) and k.lower() not in ("endpoint_url",):
            out[k] = "***"
        else:
            out[k] = v
    return out


@dataclass
class RemoteMirror:
    url: str
    local_root: Path
    storage_options: dict = field(default_factory=dict)
    check: bool = True

    def __post_init__(self):
        try:
            import fsspec
        except ImportError as exc:  # declared as a dependency; a broken install must say so
            raise RemoteStorageError(f"remote data root {self.url}: fsspec is not installed ({exc})") from exc
        self.url = self.url.rstrip("/")
        self.local_root = Path(self.local_root)
        scheme = self.url.split("://", 1)[0] if "://" in self.url else "file"
        try:
            self.fs, self.root = fsspec.core.url_to_fs(self.url, **self.storage_options)
        except ImportError as exc:
            extra = " (pip install -e '.[s3]')" if scheme in ("s3", "s3a") else ""
            raise RemoteStorageError(f"remote data root {self.url}: no filesystem for {scheme}:// "
                                     f"is installed{extra}: {exc}") from exc
        except (TypeError, ValueError) as exc:
            raise RemoteStorageError(f"remote data root {self.url}: invalid storage options "
                                     f"{redact(self.storage_options)}: {exc}") from exc
        self.scheme = scheme
        self.root = self.root.rstrip("/")
        if self.check:
            self.verify()

    def describe(self) -> str:
        endpoint = (self.storage_options.get("endpoint_url")
                    or (self.storage_options.get("client_kwargs") or {}).get("endpoint_url"))
        return f"{self.url}" + (f" (endpoint {endpoint})" if endpoint else "")

    def _fail(self, what: str, exc: BaseException) -> RemoteStorageError:
        return RemoteStorageError(f"remote data root {self.describe()}: {what}: "
                                  f"{type(exc).__name__}: {exc}")

    def verify(self) -> None:
        """Reach the data root now: a wrong endpoint, a missing bucket or refused credentials
        raise RemoteStorageError naming the URL (an empty, new data root is fine)."""
        self.fs.invalidate_cache()
        try:
            self.fs.info(self.root)
            return
        except FileNotFoundError:
            pass  # a new data root: its bucket (if any) must exist
        except PermissionError as exc:
            raise self._fail("access refused (check the credentials)", exc) from exc
        except Exception as exc:  # noqa: BLE001 - any failure to reach it is a configuration error
            raise self._fail("cannot reach it", exc) from exc
        if self.scheme in BUCKET_SCHEMES:
            bucket = self.root.split("/", 1)[0]
            try:
                self.fs.info(bucket)
            except FileNotFoundError as exc:
                raise self._fail(f"bucket {bucket!r} does not exist (create it first)", exc) from exc
            except PermissionError as exc:
                raise self._fail(f"access to bucket {bucket!r} refused (check the credentials)", exc) from exc
            except Exception as exc:  # noqa: BLE001
                raise self._fail(f"cannot access bucket {bucket!r}", exc) from exc

    def _remote(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def _remote_files(self, rel: str) -> dict[str, int]:
        """relative path -> size of every remote file at or under ``rel``."""
        target = self._remote(rel)
        self.fs.invalidate_cache()  # another machine may have written since this process listed
        try:
            info = self.fs.info(target)
        except FileNotFoundError:
            return {}
        if info.get("type") == "file":
            return {rel: int(info["size"])}
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
            try:
                files = self._remote_files(rel)
                for path, size in sorted(files.items(), key=lambda kv: kv[0].endswith(".json")):
                    local = self.local_root / path
                    if local.exists() and local.stat().st_size == size and not _mutable(path):
                        continue
                    with atomic_path(local) as tmp:
                        self.fs.get_file(self._remote(path), str(tmp))
                    fetched += 1
            except RemoteStorageError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise self._fail(f"pull {rel!r}", exc) from exc
        return fetched

    def push(self, *rels: str) -> int:
        """Upload what is missing or different remotely, JSON completion marks last."""
        sent = 0
        for rel in rels:
            try:
                remote = self._remote_files(rel)
                files = sorted(self._local_files(rel), key=lambda p: p.endswith(".json"))
                for path in files:
                    size = (self.local_root / path).stat().st_size
                    if remote.get(path) == size and not _mutable(path):
                        continue
                    parent = self._remote(str(Path(path).parent))
                    self.fs.makedirs(parent, exist_ok=True)
                    self.fs.put_file(str(self.local_root / path), self._remote(path))
                    sent += 1
            except Exception as exc:  # noqa: BLE001
                raise self._fail(f"push {rel!r}", exc) from exc
        return sent


def remote_config(settings: Settings, storage_options: str | dict | None = None) -> tuple[str, dict]:
    """(url, storage options) of the remote data root ``settings`` name: its
    ``data_storage_options`` with ``storage_options`` (a resource's, JSON) merged over them,
    and its endpoint, if any, as ``endpoint_url``."""
    options = parse_storage_options(settings.data_storage_options, "FINCHUNK_DATA_STORAGE_OPTIONS")
    options.update(parse_storage_options(storage_options, "data_storage_options"))
    if settings.data_endpoint_url:
        options["endpoint_url"] = settings.data_endpoint_url
    return settings.data_url, options


_MIRRORS: dict[tuple, RemoteMirror] = {}


def mirror_of(settings: Settings, storage_options: str | dict | None = None,
              local_root: Path | None = None) -> RemoteMirror | None:
    """The mirror of ``local_root`` (default: the settings' data root) for the remote data
    root the settings name, or None (local only). Verified once per process and configuration."""
    url, options = remote_config(settings, storage_options)
    if not url:
        return None
    local_root = Path(local_root or settings.data_root)
    key = (url, str(local_root.resolve()), json.dumps(options, sort_keys=True, default=str))
    if key not in _MIRRORS:
        _MIRRORS[key] = RemoteMirror(url, local_root, options)
    return _MIRRORS[key]
