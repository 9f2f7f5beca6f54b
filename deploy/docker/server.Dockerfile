# kseek-server image: built from the repository in a Debian 12 stage, run on
# debian:12-slim with Debian's runtime libraries (docs/deploy.md).
#   docker build -f deploy/docker/server.Dockerfile -t kseek-server:0.13.0 .
#   docker run -v kseek-data:/var/lib/kseek -v /etc/kseek:/etc/kseek:ro -p 7070:7070 -p 9090:9090 \
#     kseek-server:0.13.0 --config /etc/kseek/server.textproto

FROM debian:12-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config ca-certificates \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler \
      libabsl-dev libsqlite3-dev libcurl4-openssl-dev libssl-dev \
      catch2 nlohmann-json3-dev libre2-dev prometheus-cpp-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# No CUDA here: the CMake project leaves kseek-runner out; the server and
# the CLI need none.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
 && cmake --build /build --target kseek-server kseek \
 && install -D -m 0755 /build/bin/kseek-server /opt/kseek/bin/kseek-server \
 && install -D -m 0755 /build/bin/kseek /opt/kseek/bin/kseek \
 && mkdir -p /opt/kseek/share \
 && cp -r scenarios question_bank /opt/kseek/share/

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates libgrpc++1.51 libprotobuf32 libabsl20220623 libsqlite3-0 libcurl4 libssl3 libre2-9 \
      libgrpc29 libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 kseek \
 && useradd --system --uid 10001 --gid kseek --home-dir /var/lib/kseek --shell /usr/sbin/nologin kseek \
 && install -d -o kseek -g kseek -m 0700 /var/lib/kseek
COPY --from=build /opt/kseek /opt/kseek
USER 10001:10001
VOLUME ["/var/lib/kseek"]
# 7070: gRPC (clients, workers, grpc.health.v1); 9090: Prometheus, when
# the config sets metrics_listen.
EXPOSE 7070 9090
ENTRYPOINT ["/opt/kseek/bin/kseek-server", "--db", "/var/lib/kseek/kseek.db"]
CMD ["--listen", "0.0.0.0:7070", "--metrics-listen", "0.0.0.0:9090"]
