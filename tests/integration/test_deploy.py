"""The deploy files parse and say what they should (no Docker engine here to build them)."""

from __future__ import annotations

import re
import runpy

import pytest
import yaml

from tests.integration.conftest import ROOT

pytestmark = pytest.mark.integration
DEPLOY = ROOT / "deploy"


def k8s_documents():
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


WORKER_QUEUES = {  # each pool on its own queues (docs/deploy.md, "Isolated work")
    "worker": "sessions,timers",
    "search-worker": "search",
    "delivery-worker": "webhooks",
}


def queues_of(command: list[str]) -> str:
    return command[command.index("-Q") + 1]


def test_compose_has_redis_api_streams_and_the_three_worker_pools():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "api", "streams", *WORKER_QUEUES}
    assert services["api"]["environment"]["REDIS_URL"].startswith("redis://redis:")
    # sessions survive a Redis restart: an append-only file on a named volume
    redis_args = services["redis"]["command"]
    assert redis_args[redis_args.index("--appendonly") + 1] == "yes"
    assert any(v.split(":")[0] in compose["volumes"] for v in services["redis"]["volumes"])
    assert services["streams"]["environment"]["MAJLIS_STREAM_SERVER"] == "1"
    stream_port = services["streams"]["environment"]["MAJLIS_STREAM_BIND"].rsplit(":", 1)[1]
    assert services["api"]["environment"]["MAJLIS_STREAM_URL"].endswith(":" + stream_port)
    for name, queues in WORKER_QUEUES.items():
        command = services[name]["command"]
        assert command[:4] == ["celery", "-A", "service.celery_app", "worker"]
        assert queues_of(command) == queues
        assert services[name]["environment"]["MAJLIS_WEBHOOK_ALLOW_PRIVATE"] == "0"
    assert (
        services["delivery-worker"]["command"][services["delivery-worker"]["command"].index("-P") + 1]
        == "threads"
    )


def test_kubernetes_manifests():
    docs = k8s_documents()
    by_kind = {}
    for doc in docs:
        assert {"apiVersion", "kind", "metadata"} <= set(doc)
        by_kind.setdefault(doc["kind"], []).append(doc)
    deployments = {d["metadata"]["name"]: d for d in by_kind["Deployment"]}
    workers = {f"majlis-{name}": queues for name, queues in WORKER_QUEUES.items()}
    assert set(deployments) == {"majlis-api", "majlis-streams", "majlis-redis", *workers}
    redis = deployments["majlis-redis"]["spec"]["template"]["spec"]
    args = redis["containers"][0]["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    claims = {c["metadata"]["name"] for c in by_kind["PersistentVolumeClaim"]}
    assert {v["persistentVolumeClaim"]["claimName"] for v in redis["volumes"]} <= claims
    streams = deployments["majlis-streams"]["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "MAJLIS_STREAM_SERVER", "value": "1"} in streams["env"]
    hpas = {h["spec"]["scaleTargetRef"]["name"] for h in by_kind["HorizontalPodAutoscaler"]}
    assert {"majlis-api", *workers} <= hpas
    api = deployments["majlis-api"]["spec"]["template"]["spec"]
    container = api["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert api["securityContext"]["runAsNonRoot"] is True
    for name, queues in workers.items():
        worker = deployments[name]["spec"]["template"]["spec"]["containers"][0]
        assert worker["command"][:4] == ["celery", "-A", "service.celery_app", "worker"]
        assert queues_of(worker["command"]) == queues
    for deployment in deployments.values():  # labels select their own pods
        spec = deployment["spec"]
        assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()


def test_dockerfile_is_slim_and_not_root():
    text = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\s*$", text, re.M)
    users = re.findall(r"^USER\s+(\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0")
    assert "service.wsgi:app" in text
    # the build stage compiles the hot modules and refuses an interpreted build
    assert "COPY pyproject.toml setup.py" in text and "gcc" in text
    assert "ai.build_info --require compiled" in text


def test_gunicorn_config_reads_the_environment(monkeypatch):
    monkeypatch.setenv("MAJLIS_BIND", "127.0.0.1:9999")
    monkeypatch.setenv("MAJLIS_WEB_WORKERS", "3")
    conf = runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    assert conf["bind"] == "127.0.0.1:9999" and conf["workers"] == 3
    assert callable(conf["child_exit"])


def sentinel_settings(monkeypatch, env: dict[str, str]):
    """The Settings a process gets from ``env`` (REDIS_URL and the Sentinel variables)."""
    from service.settings import Settings

    for name, value in env.items():
        monkeypatch.setenv(name, str(value))
    return Settings()


def test_compose_sentinel_variant_points_every_service_at_the_sentinels(monkeypatch):
    from service.celery_app import celery_config
    from service.redis_conn import parse_sentinel_url

    base = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    compose = yaml.safe_load((DEPLOY / "compose.sentinel.yaml").read_text())
    services = compose["services"]
    sentinels = {name for name in services if name.startswith("sentinel-")}
    assert len(sentinels) == 3 and "redis-replica" in services
    replica = services["redis-replica"]["command"]
    assert replica[replica.index("--replicaof") + 1] == "redis"
    for name in ("api", "streams", *WORKER_QUEUES):  # every service of compose.yaml
        assert name in base
        env = services[name]["environment"]
        listed = {entry.split(":")[0] for entry in env["MAJLIS_REDIS_SENTINELS"].split(",")}
        assert listed == sentinels
        settings = sentinel_settings(monkeypatch, env)
        target = parse_sentinel_url(settings.REDIS_URL)
        assert target.master == env["MAJLIS_REDIS_SENTINEL_MASTER"] and target.wait_replicas == 1
        celery = celery_config(settings.as_config())
        assert celery["broker_url"].startswith("sentinel://sentinel-1:26379/0;")
        assert celery["broker_transport_options"]["master_name"] == target.master
    monitor = services["sentinel-1"]["entrypoint"][-1]
    assert "sentinel monitor mymaster redis 6379 2" in monitor


def test_kubernetes_sentinel_variant(monkeypatch):
    from service.redis_conn import parse_sentinel_url

    docs = [
        d for d in yaml.safe_load_all((DEPLOY / "k8s" / "sentinel" / "redis-sentinel.yaml").read_text()) if d
    ]
    by_name = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    redis = by_name["StatefulSet", "majlis-redis-ha"]
    assert redis["spec"]["replicas"] == 2 and redis["spec"]["serviceName"] == "majlis-redis-ha"
    assert by_name["Service", "majlis-redis-ha"]["spec"]["clusterIP"] == "None"
    sentinel = by_name["Deployment", "majlis-sentinel"]
    assert sentinel["spec"]["replicas"] == 3
    assert "--sentinel" in sentinel["spec"]["template"]["spec"]["containers"][0]["args"][0]
    env = by_name["ConfigMap", "majlis-sentinel-env"]["data"]
    host = env["MAJLIS_REDIS_SENTINELS"].split(":")[0]
    assert ("Service", host) in by_name
    target = parse_sentinel_url(sentinel_settings(monkeypatch, env).REDIS_URL)
    assert target.sentinels == ((host, 26379),) and target.wait_replicas == 1
    for doc in docs:
        if doc["kind"] in ("Deployment", "StatefulSet"):
            spec = doc["spec"]
            assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
