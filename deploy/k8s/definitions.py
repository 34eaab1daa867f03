"""The project's Definitions with every step of a run in its own Kubernetes pod.

Use it as the code location on a cluster whose instance is ``deploy/k8s/dagster.yaml``:
``dagster api grpc -m deploy.k8s.definitions`` (or ``-f deploy/k8s/definitions.py``) in the
image from ``deploy/Dockerfile``. The assets are the same; only the executor differs: a
chunk set's run then puts chunking, the BM25 and FAISS indexes and the evaluation in
separate pods, which share nothing but the remote data root (FINCHUNK_DATA_URL) — each step
pulls what it reads and pushes what it writes (finchunk_pipeline/storage/remote.py).
"""
from dagster import Definitions
from dagster_k8s import k8s_job_executor

from finchunk_pipeline.assets.jobs import chunk_set_job, documents_job, report_job
from finchunk_pipeline.assets.schedules import SCHEDULES
from finchunk_pipeline.assets.sensors import SENSORS
from finchunk_pipeline.definitions import ALL_CHECKS, PIPELINE_ASSETS, resources

# step pods: same image as the run; resources per step, at most 4 step pods per run
executor = k8s_job_executor.configured({
    "max_concurrent": 4,
    "step_k8s_config": {"container_config": {"resources": {"requests": {"cpu": "1", "memory": "3Gi"}}}},
})

defs = Definitions(
    assets=PIPELINE_ASSETS,
    asset_checks=ALL_CHECKS,
    jobs=[documents_job, chunk_set_job, report_job],
    schedules=SCHEDULES,
    sensors=SENSORS,
    resources=resources(),
    executor=executor,
)
