"""The container image on a real Docker engine (system tier): ``make image`` builds it
(deploy/image.sh; cached by layers), then

- ``docker run … finchunk run`` on the embedded corpus, data root and DAGSTER_HOME as volumes,
  writes an evaluation.json equal to the host's in every number (index sizes aside) and
  byte-identical dense indexes;
- Dagster in containers: a code location server, the webserver and the daemon from the image
  with ``deploy/docker/dagster.yaml`` unchanged (Postgres storage, DockerRunLauncher, S3 compute
  logs), the data root in S3; a backfill of three chunk-set partitions runs each partition in
  its own container of the image, the evaluations equal the host's, and the webserver's GraphQL
  API (what the UI shows) reports the backfill, its runs and the materializations.

Postgres and S3 (moto) are the servers tests/servers.py starts on 127.0.0.1; the containers use
the host's network to reach them. Skipped, saying why, when no Docker engine answers (.ci/run
starts one when the docker.io package is installed) or the image cannot be built here.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from finchunk_pipeline import PROJECT_ROOT

from tests.servers import free_port

pytestmark = pytest.mark.slow

IMAGE = os.environ.get("FINCHUNK_IMAGE", "finchunk:0.1.0")
BASE = os.environ.get("FINCHUNK_BASE_IMAGE", "finchunk-base:bookworm")
# one dense chunk set (torch and the packaged model in the container) and two BM25-only ones
CHUNK_SETS = ["structure-h", "sentence", "paragraph"]
IN_IMAGE_CORPUS = Path("/app/data/corpus/default")  # the embedded corpus, inside the image
LOCATION = "finchunk_pipeline"


def _compare():
    spec = importlib.util.spec_from_file_location("compare_evaluations", PROJECT_ROOT / "bench" / "compare_evaluations.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def differences(host: dict, container: dict) -> list[str]:
    """Every number that differs; versions, inputs, timings and index sizes aside (the index
    markers record build timings)."""
    mod = _compare()
    mod.IGNORED.update({"index_bytes", "index_bytes_retriever"})
    return list(mod.differences(host, container))


def docker(*args: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"docker {' '.join(args[:3])} ... exit {result.returncode}:\n{result.stderr[-3000:]}")
    return result


def engine_missing() -> str | None:
    """Why no container can run here, or None."""
    if shutil.which("docker") is None:
        return "no Docker client (docker) on PATH"
    try:
        info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True,
                              text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "the Docker engine does not answer (docker info timed out)"
    if info.returncode != 0:
        first = (info.stderr.strip().splitlines() or ["no answer"])[0]
        return (f"no Docker engine answers ({first}); install the docker.io package and start dockerd "
                "(.ci/run does when the package is installed)")
    return None


@pytest.fixture(scope="session")
def image(tmp_path_factory) -> str:
    """The image, as `make image` builds it (deploy/image.sh; layers cached between sessions)."""
    why = engine_missing()
    if why:
        pytest.skip(why)
    base_there = docker("image", "inspect", BASE, check=False).returncode == 0
    if not base_there and BASE.startswith("finchunk-base:"):
        if shutil.which("debootstrap") is None or os.geteuid() != 0:
            pytest.skip(f"the base image {BASE} is not built and cannot be here: deploy/base_image.sh needs "
                        "root and debootstrap (apt-get install debootstrap)")
    log = tmp_path_factory.mktemp("image") / "build.log"
    with open(log, "w") as f:
        done = subprocess.run([str(PROJECT_ROOT / "deploy" / "image.sh")], stdout=f, stderr=subprocess.STDOUT,
                              env={**os.environ, "FINCHUNK_IMAGE": IMAGE, "FINCHUNK_BASE_IMAGE": BASE},
                              timeout=3600)
    assert done.returncode == 0, f"deploy/image.sh failed:\n{log.read_text()[-4000:]}"
    return IMAGE


@pytest.fixture(scope="session")
def host_reference(tmp_path_factory) -> Path:
    """`finchunk run` on the host, the same chunk sets: the numbers the containers must give."""
    root = tmp_path_factory.mktemp("host")
    finchunk = Path(sys.executable).parent / "finchunk"
    cmd = [str(finchunk)] if finchunk.exists() else [sys.executable, "-c", "from finchunk_pipeline.cli import main; raise SystemExit(main())"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FINCHUNK_", "DAGSTER_", "AWS_"))}
    env["DAGSTER_HOME"] = str(root / "dagster_home")
    done = subprocess.run([*cmd, "run", "--data", str(root / "store"), "--out", str(root / "out"),
                           "--chunk-sets", ",".join(CHUNK_SETS)], capture_output=True, text=True, env=env,
                          timeout=3600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return root


def stored_evaluations(root: Path) -> dict[str, dict]:
    """{chunk set version: its evaluation.json} under a data root (any corpus folder)."""
    return {p.parent.name: json.loads(p.read_text())
            for p in root.glob("corpora/*/evaluations/*/evaluation.json")}


def dense_index_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(next(root.glob("corpora/*"))).as_posix()): p.read_bytes()
            for p in root.glob("corpora/*/indexes/*/dense/**/*") if p.is_file() and p.suffix != ".json"}


def test_finchunk_run_in_the_container_equals_the_host(image, host_reference, tmp_path):
    work, home = tmp_path / "work", tmp_path / "dagster_home"
    work.mkdir()
    home.mkdir()
    run = docker("run", "--rm", "--user", f"{os.getuid()}:{os.getgid()}",
                 "-v", f"{work}:/work", "-v", f"{home}:/dagster_home", "-e", "DAGSTER_HOME=/dagster_home",
                 image, "finchunk", "run", "--data", "/work/store", "--out", "/work/out",
                 "--chunk-sets", ",".join(CHUNK_SETS), timeout=3600)
    assert f"corpus   {IN_IMAGE_CORPUS}" in run.stdout  # the corpus inside the image
    host = json.loads((host_reference / "out" / "evaluation.json").read_text())
    inside = json.loads((work / "out" / "evaluation.json").read_text())
    assert {e["name"] for e in inside["chunk_sets"]} == set(CHUNK_SETS)
    assert differences(host, inside) == []
    # each chunk set's stored evaluation too, under the same version names
    host_evals, inside_evals = stored_evaluations(host_reference / "store"), stored_evaluations(work / "store")
    assert sorted(inside_evals) == sorted(host_evals) and len(inside_evals) == len(CHUNK_SETS)
    for version, evaluation in host_evals.items():
        assert differences(evaluation, inside_evals[version]) == [], version
    # torch in the image embeds exactly as on the host: the dense index files are identical
    host_dense, inside_dense = dense_index_files(host_reference / "store"), dense_index_files(work / "store")
    assert host_dense and host_dense.keys() == inside_dense.keys()
    assert [k for k in host_dense if host_dense[k] != inside_dense[k]] == []
    # the runs are recorded in the DAGSTER_HOME volume (the single-machine instance finchunk run
    # writes there): the host opens it as it would its own (finchunk ui with that DAGSTER_HOME)
    from dagster import DagsterInstance, DagsterRunStatus

    assert (home / "dagster.yaml").exists()
    with DagsterInstance.from_config(str(home)) as instance:
        runs = instance.get_runs()
        partitions = sorted(r.tags["dagster/partition"] for r in runs if "dagster/partition" in r.tags)
        assert partitions == sorted(CHUNK_SETS) and {r.status for r in runs} == {DagsterRunStatus.SUCCESS}


# --- Dagster in containers ----------------------------------------------------------------------

REPOSITORY = {"repositoryLocationName": LOCATION, "repositoryName": "__repository__"}
LOCATION_LOADED = """{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus
  locationOrLoadError { __typename ... on PythonError { message } } } } } }"""
LAUNCH_RUN = """mutation($p: ExecutionParams!) { launchRun(executionParams: $p) { __typename
  ... on LaunchRunSuccess { run { runId } } ... on PythonError { message } } }"""
LAUNCH_BACKFILL = """mutation($p: LaunchBackfillParams!) { launchPartitionBackfill(backfillParams: $p) {
  __typename ... on LaunchBackfillSuccess { backfillId } ... on PythonError { message } } }"""
RUN = """query($id: ID!) { runOrError(runId: $id) { ... on Run { runId status tags { key value } } } }"""
BACKFILL = """query($id: String!) { partitionBackfillOrError(backfillId: $id) { ... on PartitionBackfill {
  status partitionNames runs(limit: 10) { runId status tags { key value } } } } }"""
MATERIALIZED = """{ assetNodeOrError(assetKey: {path: ["retrieval_evaluation"]}) { ... on AssetNode {
  assetMaterializations(limit: 20) { partition runId } } } }"""
ENDED = ("SUCCESS", "FAILURE", "CANCELED")


def wait_for(what: str, probe, timeout: float, logs=lambda: ""):
    """probe()'s first truthy value; a probe that raises (server not up yet) counts as not yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = probe()
        except (OSError, AssertionError, KeyError, TypeError):
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s\n{logs()}"
        time.sleep(2)


class Deployment:
    """deploy/docker/ as docs/operations-containers.md runs it, on the host's network: the code
    location server, the webserver and the daemon, each a container of the image; every container
    it causes (the runs' too) carries the label finchunk-test=<tag>."""

    def __init__(self, image: str, folder: Path, env: dict, run_env: tuple[str, ...] = ()):
        self.image, self.tag, self.run_env = image, uuid.uuid4().hex[:8], list(run_env)
        self.db, self.bucket = env["DAGSTER_PG_DB"], env["DAGSTER_COMPUTE_LOGS_BUCKET"]
        self.code_port, self.web_port = int(env["FINCHUNK_CODE_PORT"]), free_port()
        instance_file = folder / "dagster.yaml"
        shutil.copy(PROJECT_ROOT / "deploy" / "docker" / "dagster.yaml", instance_file)  # as documented, unchanged
        instance_file.chmod(0o644)
        env_file = folder / "env"
        env_file.write_text("".join(f"{k}={v}\n" for k, v in env.items()))
        self.common = ["--network", "host", "--env-file", str(env_file), "--label", f"finchunk-test={self.tag}",
                       "-v", f"{instance_file}:/opt/dagster/dagster_home/dagster.yaml:ro"]
        socket_gid = os.stat("/var/run/docker.sock").st_gid if os.path.exists("/var/run/docker.sock") else 0
        self.launcher = ["-v", "/var/run/docker.sock:/var/run/docker.sock", "--group-add", str(socket_gid)]

    def start(self) -> None:
        # the code location's own settings for its runs' containers (merged with the instance's):
        # the pipeline's settings (run_env), and the label by which this test finds, and removes,
        # every container it caused
        context = json.dumps({"docker": {"env_vars": self.run_env,
                                         "container_kwargs": {"labels": {"finchunk-test": self.tag}}}})
        self.run_container("-d", "--name", f"finchunk-test-{self.tag}-code", args=[
            "dagster", "api", "grpc", "-h", "127.0.0.1", "-p", str(self.code_port),
            "-m", "finchunk_pipeline.definitions", "--container-context", context])
        self.run_container("-d", "--name", f"finchunk-test-{self.tag}-webserver", *self.launcher, args=[
            "dagster-webserver", "-h", "127.0.0.1", "-p", str(self.web_port), "-w", "deploy/docker/workspace.yaml"])
        self.run_container("-d", "--name", f"finchunk-test-{self.tag}-daemon", *self.launcher, args=[
            "dagster-daemon", "run", "-w", "deploy/docker/workspace.yaml"])
        wait_for("the webserver loads the code location from the code server", lambda: [
            e for e in self.graphql(LOCATION_LOADED)["workspaceOrError"]["locationEntries"]
            if e["name"] == LOCATION and e["loadStatus"] == "LOADED"
            and e["locationOrLoadError"]["__typename"] == "RepositoryLocation"], 300, self.logs)

    def run_container(self, *options: str, args: list[str]) -> str:
        return docker("run", *options, *self.common, self.image, *args).stdout

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.web_port}/graphql", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json.loads(response.read())
        assert "errors" not in answer, answer["errors"]
        return answer["data"]

    def launch(self, job: str) -> str:
        launched = self.graphql(LAUNCH_RUN, {"p": {"selector": {**REPOSITORY, "jobName": job}}})["launchRun"]
        assert launched["__typename"] == "LaunchRunSuccess", launched
        return launched["run"]["runId"]

    def run(self, run_id: str) -> dict:
        return self.graphql(RUN, {"id": run_id})["runOrError"]

    def finished_run(self, run_id: str, timeout: float) -> dict:
        return wait_for(f"run {run_id} ends", lambda: (r := self.run(run_id))["status"] in ENDED and r,
                        timeout, self.logs)

    def backfill(self, job: str, partitions: list[str]) -> str:
        launched = self.graphql(LAUNCH_BACKFILL, {"p": {
            "selector": {"partitionSetName": f"{job}_partition_set", "repositorySelector": REPOSITORY},
            "partitionNames": partitions}})["launchPartitionBackfill"]
        assert launched["__typename"] == "LaunchBackfillSuccess", launched
        return launched["backfillId"]

    def finished_backfill(self, backfill_id: str, runs: int, timeout: float) -> dict:
        def ended():
            b = self.graphql(BACKFILL, {"id": backfill_id})["partitionBackfillOrError"]
            return (b["status"] != "REQUESTED" and len(b["runs"]) == runs
                    and all(r["status"] in ENDED for r in b["runs"]) and b)
        return wait_for(f"the backfill {backfill_id}'s runs end", ended, timeout, self.logs)

    def containers(self) -> list[str]:
        return docker("ps", "-aq", "--filter", f"label=finchunk-test={self.tag}", check=False).stdout.split()

    def logs(self) -> str:
        """The tails of every container of this deployment: code server, webserver, daemon, runs."""
        out = []
        for cid in self.containers():
            name = docker("inspect", "--format", "{{.Name}} {{index .Config.Labels \"dagster/job_name\"}}", cid,
                          check=False).stdout.strip()
            r = docker("logs", "--tail", "40", cid, check=False)
            out.append(f"--- {name}:\n{r.stdout[-2500:]}{r.stderr[-2500:]}")
        return "\n".join(out)

    def remove(self) -> None:
        if ids := self.containers():
            docker("rm", "-f", *ids, check=False)


def run_container_state(run: dict) -> dict:
    """The container a run ran in (its docker/container_id tag), as docker inspect sees it."""
    tags = {t["key"]: t["value"] for t in run["tags"]}
    return json.loads(docker("inspect", tags["docker/container_id"]).stdout)[0]


def evaluations_in_bucket(s3, bucket: str) -> dict[str, dict]:
    """{chunk set version: its evaluation.json} under the S3 data root s3://bucket/finchunk."""
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="finchunk/corpora/").get("Contents", [])]
    return {k.split("/")[-2]: json.loads(s3.get_object(Bucket=bucket, Key=k)["Body"].read())
            for k in keys if k.endswith("/evaluation.json") and "/evaluations/" in k and "/history/" not in k}


@pytest.fixture
def deployment(image, tmp_path, postgres_server, s3_server):
    db, bucket = postgres_server.create_database(), s3_server.create_bucket()
    env = {"DAGSTER_PG_HOST": postgres_server.host, "DAGSTER_PG_PORT": str(postgres_server.port),
           "DAGSTER_PG_USER": postgres_server.user, "DAGSTER_PG_PASSWORD": "", "DAGSTER_PG_DB": db,
           "DAGSTER_MAX_CONCURRENT_RUNS": "2", "DAGSTER_COMPUTE_LOGS_BUCKET": bucket,
           "FINCHUNK_IMAGE": image, "FINCHUNK_DOCKER_NETWORK": "host",
           "FINCHUNK_DATA_URL": f"s3://{bucket}/finchunk", **s3_server.env(),
           "FINCHUNK_CODE_HOST": "127.0.0.1", "FINCHUNK_CODE_PORT": str(free_port()),
           # no schedules or automation here: only the runs this test launches (the sensor that
           # registers the chunk-set partitions runs regardless)
           "FINCHUNK_AUTOMATION": "off"}
    d = Deployment(image, tmp_path, env)
    try:
        d.start()
        yield d
    finally:
        d.remove()


def test_dagster_backfill_runs_each_partition_in_its_own_container(deployment, postgres_server, s3_server, request):
    d = deployment
    # the partitions (the sensor does the same when the daemon ticks), then the documents
    synced = d.run_container("--rm", args=["finchunk", "partitions", "sync"])
    assert all(name in synced.split() for name in CHUNK_SETS), synced
    documents = d.finished_run(d.launch("documents_job"), 900)
    assert documents["status"] == "SUCCESS", d.logs()

    backfill_id = d.backfill("chunk_set_job", CHUNK_SETS)
    done = d.finished_backfill(backfill_id, len(CHUNK_SETS), 1800)
    # what the UI shows: the backfill succeeded, one successful run per partition, materialized
    assert done["status"] == "COMPLETED_SUCCESS", f"{done}\n{d.logs()}"
    assert sorted(done["partitionNames"]) == sorted(CHUNK_SETS)
    runs = {next(t["value"] for t in r["tags"] if t["key"] == "dagster/partition"): r for r in done["runs"]}
    assert sorted(runs) == sorted(CHUNK_SETS) and {r["status"] for r in runs.values()} == {"SUCCESS"}, done
    materialized = d.graphql(MATERIALIZED)["assetNodeOrError"]["assetMaterializations"]
    assert {m["partition"] for m in materialized if m["runId"] in {r["runId"] for r in runs.values()}} \
        == set(CHUNK_SETS)

    # each run in its own container of the image, which exited cleanly
    image_id = docker("image", "inspect", "--format", "{{.Id}}", d.image).stdout.strip()
    containers = set()
    for run in [*runs.values(), documents]:
        state = run_container_state(run)
        assert state["Image"] == image_id and state["State"]["ExitCode"] == 0, (run["runId"], state["State"])
        assert state["Config"]["Labels"]["dagster/run_id"] == run["runId"]
        assert state["Config"]["Labels"]["finchunk-test"] == d.tag  # the code location's container context
        containers.add(state["Id"])
    assert len(containers) == len(CHUNK_SETS) + 1

    # the results: each chunk set's evaluation in the S3 data root equals the host's
    s3 = s3_server.client()
    in_s3 = evaluations_in_bucket(s3, d.bucket)
    host = stored_evaluations(request.getfixturevalue("host_reference") / "store")
    assert sorted(in_s3) == sorted(host)
    for version, evaluation in host.items():
        assert differences(evaluation, in_s3[version]) == [], version
    # the runs' step logs went to the bucket (S3ComputeLogManager, from the run containers), and
    # every run is in Postgres, successful (the documents run, the backfill's, any the sensor asked for)
    assert s3.list_objects_v2(Bucket=d.bucket, Prefix="dagster-compute-logs/").get("KeyCount", 0) > 0
    statuses = [s for (s,) in postgres_server.query(d.db, "SELECT status FROM runs")]
    assert len(statuses) >= len(CHUNK_SETS) + 1 and set(statuses) == {"SUCCESS"}, statuses
