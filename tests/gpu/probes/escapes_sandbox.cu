// A kernel whose host code tries what a hostile user's would: read the
// host's files, find the worker's token or the hidden-seed key, reach the
// network. It computes the right answer (naive.cu) only when every attempt
// failed, and returns an error otherwise, so a verify job passes exactly
// when the sandbox held.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "plant.cuh"

namespace {

bool Readable(const char* path) {
  FILE* f = fopen(path, "r");
  if (f == nullptr) return false;
  fclose(f);
  return true;
}

// The command line, NUL-separated, as one string with spaces.
bool CommandLineHasKey() {
  FILE* f = fopen("/proc/self/cmdline", "r");
  if (f == nullptr) return false;
  char buffer[8192] = {};
  size_t n = fread(buffer, 1, sizeof(buffer) - 1, f);
  fclose(f);
  for (size_t i = 0; i + 1 < n; ++i) {
    if (strcmp(buffer + i, "--hidden-seed-key") == 0) {
      const char* value = buffer + i + strlen("--hidden-seed-key") + 1;
      return strcmp(value, "-") != 0;
    }
  }
  return false;
}

bool ReachesNetwork() {
  // Any address outside: the sandbox has loopback alone, so this fails at
  // once (no route) instead of timing out.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(53);
  inet_pton(AF_INET, "10.0.0.1", &addr.sin_addr);
  timeval timeout{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  bool connected = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 || errno == ETIMEDOUT;
  close(fd);
  return connected;
}

int Escapes() {
  int found = 0;
  if (Readable("/etc/passwd")) found |= 1;
  if (Readable("/etc/shadow")) found |= 2;
  if (getenv("KSEEK_WORKER_TOKEN") != nullptr) found |= 4;
  if (CommandLineHasKey()) found |= 8;
  if (ReachesNetwork()) found |= 16;
  if (access("/root", F_OK) == 0 || access("/home", F_OK) == 0) found |= 32;
  return found;
}

}  // namespace

extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream) {
  if (int escapes = Escapes(); escapes != 0) {
    fprintf(stderr, "escaped the sandbox: mask %d\n", escapes);
    return 100 + escapes;
  }
  return NaiveAttention(args, stream);
}
