// Plain-text tables for the kseek CLI: a header row and aligned columns.
//
// Widths count UTF-8 code points, not bytes, so a cell holding "≤" lines up
// with ASCII cells. Plain functions; thread-safe.
#ifndef KERNELSEEK_CLIENT_TEXT_TABLE_H_
#define KERNELSEEK_CLIENT_TEXT_TABLE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kseek {

enum class Align { kLeft, kRight };

// Columns separated by two spaces, each as wide as its widest cell; no
// trailing blanks so that output diffs cleanly. A row may have fewer cells
// than the header (the rest are blank).
std::string FormatTable(const std::vector<std::string>& header, const std::vector<Align>& align,
                        const std::vector<std::vector<std::string>>& rows);

// Code points in `text`, taken as UTF-8.
size_t DisplayWidth(absl::string_view text);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_TEXT_TABLE_H_
