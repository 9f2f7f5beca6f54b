#include "client/text_table.h"

#include <algorithm>

namespace kseek {

size_t DisplayWidth(absl::string_view text) {
  // Continuation bytes (10xxxxxx) belong to the code point before them.
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string FormatTable(const std::vector<std::string>& header, const std::vector<Align>& align,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = DisplayWidth(header[c]);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], DisplayWidth(row[c]));
    }
  }
  auto format_row = [&](const std::vector<std::string>& row) {
    static const std::string kEmpty;
    std::string line;
    for (size_t c = 0; c < header.size(); ++c) {
      const std::string& cell = c < row.size() ? row[c] : kEmpty;
      if (c > 0) line += "  ";
      std::string pad(width[c] - DisplayWidth(cell), ' ');
      line += align[c] == Align::kRight ? pad + cell : cell + pad;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  std::string out = format_row(header);
  for (const auto& row : rows) out += format_row(row);
  return out;
}

}  // namespace kseek
