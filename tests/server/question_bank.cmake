# Tests of server/question_bank.h against the real question_bank/ directory.
# Included from tests/CMakeLists.txt (or tests/server/CMakeLists.txt).
add_executable(question_bank_test ${CMAKE_CURRENT_LIST_DIR}/question_bank_test.cc)
target_compile_options(question_bank_test PRIVATE ${KSEEK_WARNINGS})
target_compile_definitions(question_bank_test
  PRIVATE KSEEK_QUESTION_BANK_DIR="${CMAKE_SOURCE_DIR}/question_bank")
target_link_libraries(question_bank_test PRIVATE kseek_question_bank Catch2::Catch2WithMain)
catch_discover_tests(question_bank_test)
