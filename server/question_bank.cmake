# The question bank: loading and validating question_bank/*.textproto and
# choosing a question at a decision point. Included from server/CMakeLists.txt;
# needs proto/question_bank.proto compiled into kseek_proto.
add_library(kseek_question_bank STATIC ${CMAKE_CURRENT_LIST_DIR}/question_bank.cc)
target_include_directories(kseek_question_bank PUBLIC ${CMAKE_SOURCE_DIR})
target_compile_options(kseek_question_bank PRIVATE ${KSEEK_WARNINGS})
target_link_libraries(kseek_question_bank
  PUBLIC kseek_proto absl::status absl::statusor absl::span
  PRIVATE absl::strings absl::flat_hash_map)
