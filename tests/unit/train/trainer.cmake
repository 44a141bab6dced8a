# The trainer's unit tests (included from this folder's CMakeLists.txt).
stave_add_test(unit_train_schedule SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_schedule.cpp
               LIBS stave::train LABEL unit TIMEOUT 60)
stave_add_test(unit_train_parts SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_train_parts.cpp
               LIBS stave::train LABEL unit TIMEOUT 120 TORCH)
stave_add_test(unit_train_validator SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_validator.cpp
               LIBS stave::train LABEL unit TIMEOUT 120 TORCH)
