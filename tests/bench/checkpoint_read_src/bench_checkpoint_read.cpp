// Read time of an Ultralytics checkpoint (issue 42 §1: a yolo11x file, ~110 MB, in <= 1 s).
// Reads FILE (or a synthetic checkpoint shaped as Ultralytics saves yolo11x: a DetectionModel
// of nested modules, ~60 M float16 parameters, BatchNorm buffers, ~120 MB) with
// readUltralyticsCheckpoint, against reading the same file's bytes whole with read(2) from the
// page cache into a buffer allocated beforehand (the least any reader must do) and a memcpy of
// them, in the same run. Prints JSON.
//
//   stave-bench-checkpoint-read [--file CKPT.pt] [--out DIR] [--repeats N]
#include <fcntl.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "core/train/ultralytics_checkpoint.h"
#include "tests/unit/train/pickle_bytes.h"

namespace {

using stave::test::FakeModule;
using stave::test::leaf;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// A module tree shaped as yolo11x's (Conv = conv + bn + a shared SiLU; C3k2-like blocks of
/// cv1, cv2 and a ModuleList of bottlenecks), grown until it holds ~57 M parameters.
std::shared_ptr<FakeModule> yolo11xLike(int64_t* parameters, int64_t* tensors) {
  auto silu = leaf("torch.nn.modules.activation", "SiLU");
  auto conv = [&](int64_t in, int64_t out, int64_t k) {
    auto c = leaf("ultralytics.nn.modules.conv", "Conv");
    auto conv2d = leaf("torch.nn.modules.conv", "Conv2d");
    conv2d->params = {{"weight", torch::empty({out, in, k, k}, torch::kHalf).uniform_(-0.1, 0.1)}};
    auto bn = leaf("torch.nn.modules.batchnorm", "BatchNorm2d");
    bn->params = {{"weight", torch::ones({out}, torch::kHalf)},
                  {"bias", torch::zeros({out}, torch::kHalf)}};
    bn->buffers = {{"running_mean", torch::zeros({out}, torch::kHalf)},
                   {"running_var", torch::ones({out}, torch::kHalf)},
                   {"num_batches_tracked", torch::tensor(int64_t(0))}};
    c->children = {{"conv", conv2d}, {"bn", bn}, {"act", silu}};
    *parameters += out * in * k * k + 2 * out;
    *tensors += 6;
    return c;
  };
  auto seq = leaf("torch.nn.modules.container", "Sequential");
  const int64_t widths[] = {96, 192, 384, 384, 768, 768, 768, 768, 768, 384, 768, 384, 192};
  for (int i = 0; *parameters < 56966176; ++i) {
    const int64_t c = widths[i % 13];
    auto block = leaf("ultralytics.nn.modules.block", "C3k2");
    auto list = leaf("torch.nn.modules.container", "ModuleList");
    for (int b = 0; b < 2; ++b) {
      auto bottleneck = leaf("ultralytics.nn.modules.block", "Bottleneck");
      bottleneck->children = {{"cv1", conv(c / 2, c / 2, 3)}, {"cv2", conv(c / 2, c / 2, 3)}};
      list->children.emplace_back(std::to_string(b), bottleneck);
    }
    block->children = {{"cv1", conv(c, c, 1)}, {"cv2", conv(2 * c, c, 1)}, {"m", list}};
    seq->children.emplace_back(std::to_string(i), block);
  }
  auto model = leaf("ultralytics.nn.tasks", "DetectionModel");
  model->children = {{"model", seq}};
  return model;
}

/// The file's bytes read whole with read(2) into `buffer` (sized for it): the reference.
size_t rawRead(const std::string& path, std::unique_ptr<char[]>* buffer, size_t capacity) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return 0;
  size_t got = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer->get() + got, std::min(capacity - got, size_t(1) << 24));
    if (n <= 0) break;
    got += size_t(n);
  }
  ::close(fd);
  return got;
}

bool synthesize(const std::string& path, int64_t* parameters) {
  torch::manual_seed(0);
  int64_t tensors = 0;
  auto model = yolo11xLike(parameters, &tensors);
  stave::test::ModulePickler w;
  auto& p = w.p;
  p.emptyDict().mark();
  p.str("date").str("2024-09-27T00:00:00").str("version").str("8.3.0").str("epoch").integer(-1);
  p.str("best_fitness").none().str("model");
  w.module(model, [](stave::test::ModulePickler& m) {
    m.p.str("yaml").emptyDict().mark().str("nc").integer(80).str("scale").str("x").setItems();
    m.p.str("names").emptyDict().mark();
    for (int i = 0; i < 80; ++i) m.p.integer(i).str("class" + std::to_string(i));
    m.p.setItems().str("stride");
    m.tensor(torch::tensor({8.f, 16.f, 32.f}), false);
  });
  p.str("ema").none().str("optimizer").none().str("updates").none();
  p.str("train_args").emptyDict().mark().str("model").str("yolo11x.yaml").setItems();
  p.setItems();
  return w.save(path);
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, out = "bench-checkpoint-read";
  int repeats = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--file")
      file = argv[i + 1];
    else if (a == "--out")
      out = argv[i + 1];
    else if (a == "--repeats")
      repeats = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::cerr
          << "usage: stave-bench-checkpoint-read [--file CKPT.pt] [--out DIR] [--repeats N]\n";
      return 2;
    }
  }
  torch::set_num_threads(1);
  bool synthetic = file.empty();
  int64_t parameters = 0;
  if (synthetic) {
    std::filesystem::create_directories(out);
    file = (std::filesystem::path(out) / "yolo11x-like.pt").string();
    const auto t = Clock::now();
    if (!synthesize(file, &parameters)) {
      std::cerr << "could not write " << file << "\n";
      return 1;
    }
    std::cerr << "wrote " << file << " (" << parameters << " parameters) in " << seconds(t)
              << " s\n";
  }
  const auto bytes = std::filesystem::file_size(file);

  // The buffers of the reference, allocated once and touched before timing (the reader's
  // tensors are fresh allocations it pays for; the reference is the least any reader does).
  std::unique_ptr<char[]> buffer(new char[bytes + 1]), copyBuffer(new char[bytes + 1]);
  std::memset(buffer.get(), 0, bytes);
  std::memset(copyBuffer.get(), 0, bytes);
  std::vector<double> raw, copy, read;
  size_t tensors = 0;
  std::string version;
  for (int r = 0; r < repeats + 1; ++r) {  // the first round warms the page cache, not counted
    auto t = Clock::now();
    const size_t n = rawRead(file, &buffer, bytes + 1);
    const double tRaw = seconds(t);
    if (n != bytes) {
      std::cerr << "could not read " << file << "\n";
      return 1;
    }
    t = Clock::now();
    std::memcpy(copyBuffer.get(), buffer.get(), n);
    const double tCopy = seconds(t);
    t = Clock::now();
    auto ckpt = stave::train::readUltralyticsCheckpoint(file);
    const double tRead = seconds(t);
    if (!ckpt) {
      std::cerr << ckpt.errorText() << "\n";
      return 1;
    }
    tensors = ckpt->tensors.size();
    version = ckpt->version;
    if (r == 0) continue;
    raw.push_back(tRaw);
    copy.push_back(tCopy);
    read.push_back(tRead);
  }
  const double tRead = median(read), tRaw = median(raw), tCopy = median(copy);
  std::cout << "{\"bench\": \"checkpoint_read\", \"file\": \"" << file
            << "\", \"synthetic\": " << (synthetic ? "true" : "false") << ", \"bytes\": " << bytes
            << ", \"tensors\": " << tensors << ", \"version\": \"" << version
            << "\", \"repeats\": " << repeats << ", \"read_s\": " << tRead
            << ", \"raw_read_s\": " << tRaw << ", \"memcpy_s\": " << tCopy
            << ", \"read_vs_raw_read\": " << tRead / tRaw
            << ", \"target_read_s\": 1.0, \"met\": " << (tRead <= 1.0 ? "true" : "false") << "}\n";
  return 0;
}
