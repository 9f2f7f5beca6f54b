# kseek-worker image for GPU and compile pools, on NVIDIA's CUDA 13.0 image
# (nvcc for compile jobs; the driver comes from the node through the NVIDIA
# container toolkit). The binaries are the relocatable bundle, built first on
# a Debian 12 machine with the CUDA toolkit (docs/deploy.md):
#   bash deploy/make_bundle.sh dist/kseek-bundle
#   docker build -f deploy/docker/worker.Dockerfile -t kseek-worker:0.13.0 .
# The bundle carries every library it needs beyond glibc, the C++ runtime and
# CUDA, and its own bubblewrap, so the Ubuntu base needs no KernelSeek package.

FROM nvidia/cuda:13.0.0-devel-ubuntu24.04
# Python with PyTorch runs the baselines of bench jobs (a large layer: leave
# it out of an image for compile-only workers by building with
# --build-arg WITH_TORCH=0).
ARG WITH_TORCH=1
# The PyTorch the baselines were measured with on the H200 (docs/).
ARG TORCH_VERSION=2.11.0
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 python3-pip \
 && rm -rf /var/lib/apt/lists/* \
 && if [ "$WITH_TORCH" = 1 ]; then \
      python3 -m pip install --no-cache-dir --break-system-packages \
        --index-url https://download.pytorch.org/whl/cu130 "torch==${TORCH_VERSION}"; \
    fi
COPY dist/kseek-bundle /opt/kseek
ENV PATH=/opt/kseek/bin:/usr/local/cuda/bin:$PATH
# Job folders; the pod or `docker run` mounts a volume here.
RUN install -d -m 0711 /var/lib/kseek-worker
# Root in the container: the worker runs each job's programs in bubblewrap
# as an unprivileged --sandbox-uid (see deploy/k8s/worker-gpu-h200.yaml for
# the capabilities it needs).
ENTRYPOINT ["/opt/kseek/bin/kseek-worker"]
CMD ["--config", "/etc/kseek/worker.textproto"]
