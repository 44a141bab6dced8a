# Finds every third-party dependency once. LibTorch is the pinned wheel's that scripts/build
# passes as Torch_DIR (or any LibTorch 2.x given through Torch_DIR / CMAKE_PREFIX_PATH).
find_package(Threads REQUIRED)

# TorchConfig looks for its libraries with find_library(... PATHS <its prefix>/lib), where the
# system folders come first: a distribution's libtorch.so / libc10.so (Debian's libtorch-dev)
# would be mixed with another LibTorch's headers. Point those lookups at LibTorch's own folder.
if(Torch_DIR)
  get_filename_component(_stave_torch_prefix "${Torch_DIR}/../../.." ABSOLUTE)
  set(_stave_torch_libdir "${_stave_torch_prefix}/lib")
  # TorchConfig's find_package(Caffe2 PATHS ...) would also prefer a system Caffe2 package.
  get_filename_component(_stave_caffe2_dir "${Torch_DIR}/../Caffe2" ABSOLUTE)
  set(Caffe2_DIR "${_stave_caffe2_dir}" CACHE PATH "LibTorch's Caffe2 package" FORCE)
  foreach(_pair "TORCH_LIBRARY;torch" "c10_LIBRARY;c10" "torch_cpu_LIBRARY;torch_cpu"
                "torch_cuda_LIBRARY;torch_cuda" "C10_CUDA_LIBRARY;c10_cuda")
    list(GET _pair 0 _var)
    list(GET _pair 1 _name)
    if(EXISTS "${_stave_torch_libdir}/lib${_name}.so")
      set(${_var} "${_stave_torch_libdir}/lib${_name}.so" CACHE FILEPATH "LibTorch's ${_name}" FORCE)
    endif()
  endforeach()
endif()
find_package(Torch REQUIRED)
if(Torch_VERSION VERSION_LESS 2.0)
  message(FATAL_ERROR "Stave needs LibTorch 2.x; ${Torch_DIR} is ${Torch_VERSION}")
endif()
get_filename_component(_stave_torch_libdir "${TORCH_LIBRARY}" DIRECTORY)
# PyTorch's wheels export some libstdc++ symbols from libtorch.so (std::filesystem among them,
# ~60 weak definitions). Loaded before libstdc++, they would be what std::filesystem calls in
# Stave resolve to (seen: remove_all jumping to address 0). libstdc++ first in every
# executable's needed libraries makes the standard library's own definitions win.
add_link_options("LINKER:--push-state,--no-as-needed" "-lstdc++" "LINKER:--pop-state")
message(STATUS "Stave: LibTorch libraries in ${_stave_torch_libdir}")
if(Torch_DIR AND NOT TORCH_LIBRARY MATCHES "^${_stave_torch_prefix}/")
  message(FATAL_ERROR "Stave: LibTorch at ${Torch_DIR} but its library found at ${TORCH_LIBRARY}")
endif()
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
# What Stave's libraries and executables link: LibTorch's CPU part only. Its CUDA part
# (libtorch_cuda with cuDNN, cuBLAS, NCCL: ~230 MiB resident in every process that maps it,
# GPU or not) is linked into libstave_cuda.so alone, which core/cuda opens at run time where a
# GPU driver is. torch_cpu_library is LibTorch's own target (torch_cpu, kept as needed, and c10).
add_library(stave_torch_cpu INTERFACE)
if(TARGET torch_cpu_library)
  target_link_libraries(stave_torch_cpu INTERFACE torch_cpu_library c10)
else()
  target_link_libraries(stave_torch_cpu INTERFACE ${TORCH_LIBRARIES})
endif()
target_include_directories(stave_torch_cpu SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
if(STAVE_CUDA)
  message(STATUS "Stave: LibTorch's CUDA libraries go into libstave_cuda.so (loaded at run time)")
endif()

# Gloo headers for c10d's CPU process group (Debian: libgloo-dev).
find_path(STAVE_GLOO_INCLUDE_DIR gloo/config.h)
if(STAVE_GLOO_INCLUDE_DIR)
  message(STATUS "Stave: Gloo headers in ${STAVE_GLOO_INCLUDE_DIR}")
else()
  message(STATUS "Stave: Gloo headers not found (CPU process group unavailable)")
endif()

# OpenCV core and imgproc; imgcodecs (formats other than JPEG, which libjpeg decodes and encodes)
# is optional, for machines where only the trainer is built (Debian's imgcodecs pulls in ~185 MB).
option(STAVE_WITH_IMGCODECS "Use OpenCV imgcodecs for PNG, BMP, TIFF, WebP images" ON)
find_path(STAVE_OPENCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4 REQUIRED)
add_library(stave_opencv INTERFACE)
target_include_directories(stave_opencv INTERFACE "${STAVE_OPENCV_INCLUDE_DIR}")
set(_stave_opencv_parts core imgproc)
if(STAVE_WITH_IMGCODECS)
  find_library(STAVE_OPENCV_imgcodecs NAMES opencv_imgcodecs)
  if(STAVE_OPENCV_imgcodecs AND EXISTS "${STAVE_OPENCV_INCLUDE_DIR}/opencv2/imgcodecs.hpp")
    target_link_libraries(stave_opencv INTERFACE "${STAVE_OPENCV_imgcodecs}")
    target_compile_definitions(stave_opencv INTERFACE STAVE_HAVE_IMGCODECS=1)
    list(APPEND _stave_opencv_parts imgcodecs)
  endif()
endif()
foreach(component imgproc core)
  find_library(STAVE_OPENCV_${component} NAMES opencv_${component} REQUIRED)
  target_link_libraries(stave_opencv INTERFACE "${STAVE_OPENCV_${component}}")
endforeach()
add_library(Stave::OpenCV ALIAS stave_opencv)
message(STATUS "Stave: OpenCV (${_stave_opencv_parts}) found")
# libjpeg(-turbo): the loader decodes JPEGs with it directly (straight to BGR, DCT scaling).
find_package(JPEG REQUIRED)
message(STATUS "Stave: libjpeg ${JPEG_VERSION} found")
# zlib: a PNG's image data is inflated once to check it before libpng sees it (core/data's
# png_check: libpng would print its errors to stderr, naming no file).
find_package(ZLIB REQUIRED)
find_package(yaml-cpp REQUIRED)
# Checkpoint integrity: the CRC of every record of a torch archive (LibTorch skips them).
# Through pkg-config: Debian's libzip CMake package names tools (zipcmp) it does not install.
find_package(PkgConfig REQUIRED)
pkg_check_modules(STAVE_LIBZIP REQUIRED IMPORTED_TARGET libzip)
add_library(Stave::zip ALIAS PkgConfig::STAVE_LIBZIP)
# xxHash: checksums of disk-cache entries.
pkg_check_modules(STAVE_XXHASH REQUIRED IMPORTED_TARGET libxxhash)
add_library(Stave::xxhash ALIAS PkgConfig::STAVE_XXHASH)
# ONNX's protobuf types and checker: `export-weights --format onnx` builds its graph with them.
# Debian's ONNX package names protobuf::libprotobuf without finding it, and LibTorch's CMake
# files may have defined that name already (for the protobuf built into LibTorch): the system
# libprotobuf comes through pkg-config instead.
pkg_check_modules(STAVE_PROTOBUF REQUIRED IMPORTED_TARGET protobuf)
if(NOT TARGET protobuf::libprotobuf)
  add_library(protobuf::libprotobuf INTERFACE IMPORTED)
endif()
find_package(ONNX REQUIRED)
add_library(stave_onnx_lib INTERFACE)
target_link_libraries(stave_onnx_lib INTERFACE onnx onnx_proto PkgConfig::STAVE_PROTOBUF)
add_library(Stave::onnx ALIAS stave_onnx_lib)
message(STATUS "Stave: ONNX ${ONNX_VERSION} found")
find_package(nlohmann_json 3.2 REQUIRED)
# CLI11 (header-only; Debian's libcli11-dev) parses stave-train's command lines.
find_package(CLI11 2.1 CONFIG REQUIRED)
find_package(SQLite3 REQUIRED)
# OpenSSL's libcrypto: the event relay's HMAC-SHA256 proofs (only the run's processes may
# write into its events).
find_package(OpenSSL REQUIRED COMPONENTS Crypto)

if(STAVE_BUILD_GUI OR STAVE_BUILD_TESTS)
  find_package(Qt6 6.2 REQUIRED COMPONENTS Core Test)
endif()
if(STAVE_BUILD_GUI)
  # QCustomPlot's package needs PrintSupport to be found first.
  find_package(Qt6 6.2 REQUIRED COMPONENTS Gui Widgets PrintSupport LinguistTools)
  find_package(QCustomPlotQt6 REQUIRED)
endif()

