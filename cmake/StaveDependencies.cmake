# Finds every third-party dependency once. A CUDA LibTorch given through CMAKE_PREFIX_PATH is
# picked up here without edits; Debian's CPU LibTorch is the default.
find_package(Threads REQUIRED)

find_package(Torch REQUIRED)
if(TORCH_CXX_FLAGS)
  # LibTorch's ABI flag (_GLIBCXX_USE_CXX11_ABI) must reach every translation unit.
  separate_arguments(_stave_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  add_compile_options(${_stave_torch_flags})
endif()
set(STAVE_CUDA OFF)
if(TARGET torch_cuda OR TARGET c10_cuda OR CUDA_FOUND OR "${TORCH_LIBRARIES}" MATCHES "torch_cuda|c10_cuda")
  set(STAVE_CUDA ON)
endif()
message(STATUS "Stave: LibTorch ${Torch_VERSION} found, CUDA: ${STAVE_CUDA}")

# Gloo headers for c10d's CPU process group (Debian: libgloo-dev).
find_path(STAVE_GLOO_INCLUDE_DIR gloo/config.h)
if(STAVE_GLOO_INCLUDE_DIR)
  message(STATUS "Stave: Gloo headers in ${STAVE_GLOO_INCLUDE_DIR}")
else()
  message(STATUS "Stave: Gloo headers not found (CPU process group unavailable)")
endif()

# OpenCV: its CMake package comes with Debian's full libopencv-dev; the three -dev packages
# Stave needs ship only headers and libraries, so fall back to finding those directly.
find_package(OpenCV QUIET COMPONENTS core imgproc imgcodecs)
if(OpenCV_FOUND)
  add_library(stave_opencv INTERFACE)
  target_include_directories(stave_opencv INTERFACE ${OpenCV_INCLUDE_DIRS})
  target_link_libraries(stave_opencv INTERFACE ${OpenCV_LIBS})
else()
  find_path(STAVE_OPENCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4 REQUIRED)
  add_library(stave_opencv INTERFACE)
  target_include_directories(stave_opencv INTERFACE "${STAVE_OPENCV_INCLUDE_DIR}")
  foreach(component imgcodecs imgproc core)
    find_library(STAVE_OPENCV_${component} NAMES opencv_${component} REQUIRED)
    target_link_libraries(stave_opencv INTERFACE "${STAVE_OPENCV_${component}}")
  endforeach()
endif()
add_library(Stave::OpenCV ALIAS stave_opencv)
message(STATUS "Stave: OpenCV (core, imgproc, imgcodecs) found")
# libjpeg(-turbo): the loader decodes JPEGs with it directly (straight to BGR, DCT scaling).
find_package(JPEG REQUIRED)
message(STATUS "Stave: libjpeg ${JPEG_VERSION} found")
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.2 REQUIRED)
find_package(SQLite3 REQUIRED)

if(STAVE_BUILD_GUI OR STAVE_BUILD_TESTS)
  find_package(Qt6 6.2 REQUIRED COMPONENTS Core Test)
endif()
if(STAVE_BUILD_GUI)
  # QCustomPlot's package needs PrintSupport to be found first.
  find_package(Qt6 6.2 REQUIRED COMPONENTS Gui Widgets PrintSupport LinguistTools)
  find_package(QCustomPlotQt6 REQUIRED)
endif()
