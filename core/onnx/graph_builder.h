#pragma once
// Inside core/onnx only: appending ONNX nodes and initializers to a GraphProto (Builder), and the
// detector's network walked from its Architecture (buildNetwork). Includes ONNX's protobuf
// headers, so no header outside core/onnx includes this one.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/onnx/detector_graph.h"

namespace stave::onnx {

/// Raised while building: a weight missing or of the wrong shape, an architecture the graph
/// cannot express. The message names the weight or layer.
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// "(1, 2, 3)".
std::string shapeText(const std::vector<int64_t>& shape);

/// Appends nodes and initializers to one graph; every value gets a unique name.
class Builder {
 public:
  Builder(::onnx::GraphProto* graph, bool half) : m_graph(graph), m_half(half) {}

  /// The graph's float type (FLOAT or FLOAT16).
  int floatType() const;
  /// A float initializer in the graph's type (float16 when the graph is half), counted as
  /// parameters.
  std::string floats(const std::string& name, const std::vector<int64_t>& shape,
                     const std::vector<float>& values);
  /// A float32 initializer whatever the graph's type (Resize's scales), stored as float_data,
  /// not counted as parameters.
  std::string floats32(const std::string& name, const std::vector<int64_t>& shape,
                       const std::vector<float>& values);
  /// An int64 initializer.
  std::string ints(const std::string& name, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& values);
  /// A node `name` with `outputs` outputs named after it ("<name>_output_<k>").
  ::onnx::NodeProto* node(const std::string& type, const std::vector<std::string>& inputs,
                          const std::string& name, int outputs = 1);
  /// node()'s only output.
  std::string op(const std::string& type, const std::vector<std::string>& inputs,
                 const std::string& name);

  static void attr(::onnx::NodeProto* n, const std::string& key, const std::vector<int64_t>& v);
  static void attr(::onnx::NodeProto* n, const std::string& key, int64_t v);
  static void attr(::onnx::NodeProto* n, const std::string& key, const std::string& v);

  /// Elements of the float initializers so far.
  int64_t parameters() const { return m_parameters; }

 private:
  ::onnx::GraphProto* m_graph;
  bool m_half;
  int64_t m_parameters = 0;
};

/// The network of `g.architecture` from the image input `images` to the detections (B, 4 + nc,
/// anchors), appended to `graph`; returns the name of that last value. Throws BuildError.
std::string buildNetwork(const DetectorGraph& g, Builder& b, const std::string& images);

}  // namespace stave::onnx
