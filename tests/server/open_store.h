// OpenStore: the database at a path, migrated to the latest schema, and one
// store on it, for a test that needs only that store. The StoreFile goes when
// this returns; the store keeps its own connection.
#ifndef KERNELSEEK_TESTS_SERVER_OPEN_STORE_H_
#define KERNELSEEK_TESTS_SERVER_OPEN_STORE_H_

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "server/store_file.h"

namespace kseek::testing {

template <typename StoreT>
std::unique_ptr<StoreT> OpenStore(const std::string& path) {
  absl::StatusOr<std::unique_ptr<StoreFile>> file = StoreFile::Open(path);
  REQUIRE(file.ok());
  absl::StatusOr<std::unique_ptr<StoreT>> store = StoreT::Open(**file);
  REQUIRE(store.ok());
  return *std::move(store);
}

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_SERVER_OPEN_STORE_H_
