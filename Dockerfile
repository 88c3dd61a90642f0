# workload-map operator image: multi-stage, non-root.
# Base pinned by exact tag (no digest is recorded in this repository; pin one with
# `docker buildx imagetools inspect python:3.11.11-slim-bookworm` when publishing).
FROM python:3.11.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN python -m venv /opt/wmap \
 && /opt/wmap/bin/pip install --upgrade pip wheel \
 && /opt/wmap/bin/pip install .

FROM python:3.11.11-slim-bookworm
LABEL org.opencontainers.image.title="workload-map operator" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 wmap \
 && useradd --system --uid 10001 --gid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin wmap
COPY --from=build /opt/wmap /opt/wmap
ENV PATH=/opt/wmap/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
USER 10001:10001
EXPOSE 9443 8081
ENTRYPOINT ["python", "-m", "workload_map.operator"]
