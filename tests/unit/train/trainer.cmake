# The trainer's unit tests (included from this folder's CMakeLists.txt).
stave_add_test(unit_train_schedule SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_schedule.cpp
               LIBS stave::train LABEL unit TIMEOUT 60)
stave_add_test(unit_train_parts SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_train_parts.cpp
               LIBS stave::train LABEL unit TIMEOUT 120 TORCH)
stave_add_test(unit_train_validator SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_validator.cpp
               LIBS stave::train LABEL unit TIMEOUT 120 TORCH)
# Every schema row reaches the engine (the trainer's settings, derive(), the launcher's options).
stave_add_test(unit_train_every_setting SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_every_setting.cpp
               LIBS stave::train LABEL unit TIMEOUT 60)
# Archives that Python's torch.load reads (export-weights --format ultralytics).
stave_add_test(unit_train_pickle_writer SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_pickle_writer.cpp
               LIBS stave::train LABEL unit TIMEOUT 60 TORCH)
# The run-folder rules that refuse before anything is written (resume shape, a lock not taken).
stave_add_test(unit_train_run_folder SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_run_folder.cpp
               LIBS stave::train LABEL unit TIMEOUT 60 TORCH)
