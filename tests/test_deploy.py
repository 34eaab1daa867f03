"""deploy/: the Kubernetes instance file validates against the classes it names (K8sRunLauncher,
Postgres storage, S3 compute logs) and the k8s code location loads with k8s_job_executor; the
Dockerfile copies files that exist and installs extras that pyproject.toml declares. (No
Kubernetes cluster and no Docker engine on a test machine: nothing is launched or built.)"""
from __future__ import annotations

import importlib
import re
import tomllib

import pytest
import yaml

from finchunk_pipeline.settings import PROJECT_ROOT

DEPLOY = PROJECT_ROOT / "deploy"
ENV = {"DAGSTER_PG_HOST": "db", "DAGSTER_PG_PORT": "5432", "DAGSTER_PG_USER": "dagster",
       "DAGSTER_PG_PASSWORD": "pw", "DAGSTER_PG_DB": "dagster", "DAGSTER_COMPUTE_LOGS_BUCKET": "logs",
       "FINCHUNK_IMAGE": "registry.example/finchunk:0.1.0", "FINCHUNK_K8S_NAMESPACE": "finchunk",
       "DAGSTER_MAX_CONCURRENT_RUNS": "4"}


@pytest.mark.parametrize("path", ["dagster.yaml", "k8s/dagster.yaml"])
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
                "k8s/dagster.yaml": ["K8sRunLauncher", "QueuedRunCoordinator", "S3ComputeLogManager"]}[path]
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
    installed = re.findall(r"pip install -e '\.\[([a-z0-9,]+)\]'", text)
    assert installed and set(installed[0].split(",")) <= extras
    for line in re.findall(r"^COPY (.+)$", text, flags=re.M):
        *sources, _dest = line.split()
        for src in sources:
            assert (PROJECT_ROOT / src).exists(), f"Dockerfile copies {src}, which does not exist"
    assert "torch==2.13.0" in text and "cpu" in text  # pinned like pyproject, CPU build
    assert re.search(r'"-m", "finchunk_pipeline.definitions"', text)
