"""deploy/: the instance files validate against the classes they name (K8sRunLauncher,
DockerRunLauncher, Postgres storage, S3 compute logs), the containers' workspace file against
Dagster's schema, and the k8s code location loads with k8s_job_executor; the Dockerfile copies
files that exist and that .dockerignore lets into the build context, and installs extras that
pyproject.toml declares. Fast checks without an engine: tests/test_container.py builds the
image and runs it on a Docker engine; no Kubernetes cluster is at hand (nothing is launched on one)."""
from __future__ import annotations

import importlib
import re
import tomllib

import pytest
import yaml

from finchunk_pipeline import PROJECT_ROOT

DEPLOY = PROJECT_ROOT / "deploy"
ENV = {"DAGSTER_PG_HOST": "db", "DAGSTER_PG_PORT": "5432", "DAGSTER_PG_USER": "dagster",
       "DAGSTER_PG_PASSWORD": "pw", "DAGSTER_PG_DB": "dagster", "DAGSTER_COMPUTE_LOGS_BUCKET": "logs",
       "FINCHUNK_IMAGE": "registry.example/finchunk:0.1.0", "FINCHUNK_K8S_NAMESPACE": "finchunk",
       "DAGSTER_MAX_CONCURRENT_RUNS": "4", "FINCHUNK_DOCKER_NETWORK": "finchunk"}


@pytest.mark.parametrize("path", ["dagster.yaml", "k8s/dagster.yaml", "docker/dagster.yaml"])
def test_instance_files_validate_against_the_classes_they_name(path, tmp_path, monkeypatch):
    from dagster._config import process_config
    from dagster._core.instance.config import dagster_instance_config

    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    (tmp_path / "dagster.yaml").write_text((DEPLOY / path).read_text())
    config, _ = dagster_instance_config(str(tmp_path))  # the instance schema, env vars resolved
    raw = yaml.safe_load((DEPLOY / path).read_text())
    checked = []
    for section in ("run_launcher", "run_coordinator", "compute_logs"):
        if section not in raw:
            continue
        cls = getattr(importlib.import_module(raw[section]["module"]), raw[section]["class"])
        result = process_config(cls.config_type(), raw[section].get("config") or {})
        assert result.success, (section, [e.message for e in result.errors])
        checked.append(cls.__name__)
    from dagster_postgres import PostgresRunStorage

    pg = process_config(PostgresRunStorage.config_type(), raw["storage"]["postgres"])
    assert pg.success, [e.message for e in pg.errors]
    assert pg.value["postgres_db"]["scheme"] == "postgresql+psycopg2"
    assert config["storage"]["postgres"]["postgres_db"]["hostname"] == {"env": "DAGSTER_PG_HOST"}
    expected = {"dagster.yaml": ["QueuedRunCoordinator", "S3ComputeLogManager"],
                "k8s/dagster.yaml": ["K8sRunLauncher", "QueuedRunCoordinator", "S3ComputeLogManager"],
                "docker/dagster.yaml": ["DockerRunLauncher", "QueuedRunCoordinator", "S3ComputeLogManager"]}[path]
    assert sorted(checked) == expected


def test_a_wrong_run_launcher_setting_is_caught(monkeypatch):
    from dagster._config import process_config
    from dagster_k8s import K8sRunLauncher

    raw = yaml.safe_load((DEPLOY / "k8s" / "dagster.yaml").read_text())["run_launcher"]["config"]
    result = process_config(K8sRunLauncher.config_type(), {**raw, "job_namespac": "typo"})
    assert not result.success and "job_namespac" in str([e.message for e in result.errors])


def test_k8s_code_location_loads_with_the_k8s_job_executor():
    from dagster._config import process_config

    module = importlib.import_module("deploy.k8s.definitions")
    job = module.defs.resolve_job_def("chunk_set_job")
    assert job.executor_def.name == "k8s"
    assert process_config(job.executor_def.config_schema.config_type, {}).success
    assert job.partitions_def is not None  # still one run per chunk-set partition
    assert {"documents_job", "chunk_set_job", "report_job"} <= {j.name for j in module.defs.resolve_all_job_defs()}


def test_dockerfile_copies_existing_files_and_installs_declared_extras():
    text = (DEPLOY / "Dockerfile").read_text()
    extras = set(tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    installed = re.findall(r"^ARG EXTRAS=([a-z0-9,]+)$", text, flags=re.M)
    assert installed and set(installed[0].split(",")) <= extras
    assert {"postgres", "s3", "k8s", "docker"} <= set(installed[0].split(","))  # one image for every launcher
    # what .dockerignore lets into the build context: only the paths it names with '!'
    allowed = [line[1:].strip("/") for line in (PROJECT_ROOT / ".dockerignore").read_text().splitlines()
               if line.startswith("!")]
    copies = re.findall(r"^COPY (?!--from)(.+)$", text, flags=re.M)
    assert copies
    for line in copies:
        *sources, _dest = line.split()
        for src in sources:
            assert (PROJECT_ROOT / src).exists(), f"Dockerfile copies {src}, which does not exist"
            assert any(src.strip("/") == a or src.startswith(a + "/") for a in allowed), \
                f"Dockerfile copies {src}, which .dockerignore keeps out of the build context"
    assert "torch==2.13.0" in text and "+cpu" in text  # pinned like pyproject, CPU build
    assert re.search(r'"-m", "finchunk_pipeline.definitions"', text)
    # the final stage carries no build inputs (torch wheel, CA bundle of the build's proxy)
    final = text[text.rindex("\nFROM "):]
    assert "deploy/build" not in final and "/tmp/build" not in final


def test_containers_workspace_points_at_the_code_server(monkeypatch):
    from dagster._core.workspace.config_schema import process_workspace_config

    monkeypatch.setenv("FINCHUNK_CODE_HOST", "code")
    monkeypatch.setenv("FINCHUNK_CODE_PORT", "4000")
    result = process_workspace_config(yaml.safe_load((DEPLOY / "docker" / "workspace.yaml").read_text()))
    assert result.success, [e.message for e in result.errors]
    (entry,) = result.value["load_from"]
    assert entry["grpc_server"]["location_name"] == "finchunk_pipeline"


def test_requirements_lists_dependencies_and_the_extras_asked_for(tmp_path):
    import subprocess
    import sys

    script, pyproject = DEPLOY / "requirements.py", PROJECT_ROOT / "pyproject.toml"
    project = tomllib.loads(pyproject.read_text())["project"]
    out = subprocess.run([sys.executable, str(script), str(pyproject), "postgres,docker"], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out == project["dependencies"] + project["optional-dependencies"]["postgres"] \
        + project["optional-dependencies"]["docker"]
    bad = subprocess.run([sys.executable, str(script), str(pyproject), "postgres,nosuch"], capture_output=True, text=True)
    assert bad.returncode != 0 and "declares no extra nosuch" in bad.stderr


@pytest.mark.parametrize("path", ["k8s/dagster.yaml", "docker/dagster.yaml"])
def test_run_workers_get_every_variable_the_instance_file_names(path):
    """A run worker (container, pod) rebuilds the instance from the daemon's reference and
    resolves each {env: X} of the file itself: X must reach it through the run launcher."""
    raw = yaml.safe_load((DEPLOY / path).read_text())
    named: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            if set(node) == {"env"}:
                named.add(node["env"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(raw)
    launcher = raw["run_launcher"]["config"]
    passed = {v.split("=", 1)[0] for v in launcher.get("env_vars", [])}
    if launcher.get("postgres_password_secret"):
        passed.add("DAGSTER_PG_PASSWORD")  # K8sRunLauncher sets it from the secret
    assert named and sorted(named - passed) == []
