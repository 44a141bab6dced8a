#include "core/onnx/graph_builder.h"

#include <cstring>

namespace stave::onnx {

namespace proto = ::onnx;

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

int Builder::floatType() const {
  return m_half ? proto::TensorProto_DataType_FLOAT16 : proto::TensorProto_DataType_FLOAT;
}

std::string Builder::floats(const std::string& name, const std::vector<int64_t>& shape,
                            const std::vector<float>& values) {
  auto* t = m_graph->add_initializer();
  t->set_name(name);
  for (auto d : shape) t->add_dims(d);
  t->set_data_type(floatType());
  std::string raw;
  if (m_half) {
    raw.resize(values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t h = floatToHalf(values[i]);
      std::memcpy(&raw[i * 2], &h, 2);  // little-endian, as raw_data requires
    }
  } else {
    raw.resize(values.size() * 4);
    std::memcpy(raw.data(), values.data(), raw.size());
  }
  t->set_raw_data(raw);
  m_parameters += static_cast<int64_t>(values.size());
  return name;
}

std::string Builder::floats32(const std::string& name, const std::vector<int64_t>& shape,
                              const std::vector<float>& values) {
  auto* t = m_graph->add_initializer();
  t->set_name(name);
  for (auto d : shape) t->add_dims(d);
  t->set_data_type(proto::TensorProto_DataType_FLOAT);
  for (float v : values) t->add_float_data(v);
  return name;
}

std::string Builder::ints(const std::string& name, const std::vector<int64_t>& shape,
                          const std::vector<int64_t>& values) {
  auto* t = m_graph->add_initializer();
  t->set_name(name);
  for (auto d : shape) t->add_dims(d);
  t->set_data_type(proto::TensorProto_DataType_INT64);
  std::string raw(values.size() * 8, '\0');
  std::memcpy(raw.data(), values.data(), raw.size());
  t->set_raw_data(raw);
  return name;
}

proto::NodeProto* Builder::node(const std::string& type, const std::vector<std::string>& inputs,
                                const std::string& name, int outputs) {
  auto* n = m_graph->add_node();
  n->set_op_type(type);
  n->set_name(name);
  for (const auto& i : inputs) n->add_input(i);
  for (int k = 0; k < outputs; ++k)
    n->add_output(outputs == 1 ? name + "_output_0" : name + "_output_" + std::to_string(k));
  return n;
}

std::string Builder::op(const std::string& type, const std::vector<std::string>& inputs,
                        const std::string& name) {
  return node(type, inputs, name)->output(0);
}

void Builder::attr(proto::NodeProto* n, const std::string& key, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(proto::AttributeProto_AttributeType_INTS);
  for (auto x : v) a->add_ints(x);
}

void Builder::attr(proto::NodeProto* n, const std::string& key, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(proto::AttributeProto_AttributeType_INT);
  a->set_i(v);
}

void Builder::attr(proto::NodeProto* n, const std::string& key, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(proto::AttributeProto_AttributeType_STRING);
  a->set_s(v);
}

}  // namespace stave::onnx
