# NMS and detection metrics (helper "telemetry"); included from this folder's CMakeLists.txt.
stave_add_test(unit_train_metrics SOURCES tst_metrics.cpp LIBS stave::train LABEL unit TIMEOUT 120)
stave_add_test(unit_train_nms SOURCES tst_nms.cpp LIBS stave::train LABEL unit TIMEOUT 120 TORCH)
stave_add_test(unit_train_pred_eval SOURCES tst_pred_eval.cpp LIBS stave::train LABEL unit TIMEOUT 120)
