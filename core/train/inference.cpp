#include <cmath>
#include "core/train/inference.h"

#include "core/train/val_views.h"

#include <torch/torch.h>

#ifdef STAVE_HAVE_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include <opencv2/imgproc.hpp>
#include "core/data/image_source.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <optional>
#include <sstream>

#include "core/base/atomic_file.h"
#include "core/cuda/runtime.h"
#include "core/data/dataset.h"
#include "core/data/loader.h"
#include "core/model/yolo.h"
#include "core/train/amp.h"
#include "core/train/checkpoint.h"
#include "core/train/nms.h"
#include "core/train/optimizer.h"
#include "core/train/pred_eval.h"
#include "core/train/validator.h"
#include "core/telemetry/events.h"

namespace fs = std::filesystem;

namespace stave::train {
namespace {

/// What could not be predicted: each problem in English ("problems") and as catalog messages
/// ("problems_text", [] for one that has none), in the same order.
struct Problems {
  nlohmann::json english = nlohmann::json::array();
  nlohmann::json text = nlohmann::json::array();
  void add(const Text& t) {
    english.push_back(stave::english(t));
    text.push_back(telemetry::textToJson({t}));
  }
  void add(const std::vector<Error>& errors) {
    english.push_back(joinErrors(errors));
    text.push_back(telemetry::textToJson(textOfErrors(errors)));
  }
};

Result<torch::Device> pickDevice(const std::string& device) {
  if (device == "cpu") return torch::Device(torch::kCPU);
  if (device.empty())
    return cuda::available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (!cuda::available()) {
    return Error{"command line", 0, "device",
                 "'" + device + "' needs CUDA, which is not available here (" +
                     cuda::unavailableReason() + "); use cpu"};
  }
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(std::atoi(device.c_str())));
}

bool isImage(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp" || ext == ".tif" ||
         ext == ".tiff" || ext == ".webp";
}

cv::Scalar classColour(int cls) {
  static const cv::Scalar palette[] = {{56, 56, 255},  {151, 157, 255}, {31, 112, 255},
                                       {29, 178, 255}, {49, 210, 207},  {10, 249, 72},
                                       {23, 204, 146}, {134, 219, 61},  {52, 147, 26},
                                       {187, 212, 0},  {168, 153, 44},  {255, 194, 0}};
  return palette[static_cast<size_t>(cls) % (sizeof palette / sizeof palette[0])];
}

/// The loader of `val`: the split in order, unaugmented, rectangular batches unless asked not.
data::LoaderOptions valLoaderOptions(const ValRequest& req, const LoadedWeights& lm,
                                     bool channelsLast) {
  data::LoaderOptions lo;
  lo.imgsz = req.imgsz > 0 ? req.imgsz : static_cast<int>(lm.meta.imgsz);
  lo.batch = req.batch;
  lo.workers = req.workers;
  lo.augment = false;
  lo.shuffle = false;
  lo.rect = req.rect;
  lo.channelsLast = channelsLast;
  return lo;
}

/// Every kept detection as CSV (the eval-preds format), written atomically to `path`.
Status savePredictions(const std::string& path, const std::vector<SavedDetection>& saved) {
  std::ostringstream csv;
  csv << kPredictionsCsvHeader;
  csv.precision(7);
  for (const auto& d : saved)
    writePredictionRow(csv, d.image, d.cls, d.conf, d.x1, d.y1, d.x2, d.y2);
  return writeFileAtomic(path, csv.str());
}

/// The per_class rows of `val`'s report, named from the dataset.
nlohmann::json perClassJson(const std::vector<ClassResult>& perClass, const data::DataSpec& spec) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : perClass) {
    rows.push_back({{"cls", c.cls},
                    {"name", c.cls < spec.nc() ? spec.names[static_cast<size_t>(c.cls)] : ""},
                    {"images", c.images},
                    {"instances", c.instances},
                    {"precision", c.precision},
                    {"recall", c.recall},
                    {"map50", c.map50},
                    {"map5095", c.map5095}});
  }
  return rows;
}

/// Where predict's images come from: a folder's images (recursively, sorted; entries that
/// cannot be examined go to `problems`), or the one image file. Empty when neither exists.
std::optional<std::vector<fs::path>> predictSources(const fs::path& source,
                                                    Problems& problems) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    // Never throws: an entry that cannot be examined (a symlink loop, no permission) is a
    // problem of its own and the rest of the folder is still predicted.
    fs::recursive_directory_iterator it(source, fs::directory_options::skip_permission_denied, ec),
        end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code fileEc;
      const bool regular = it->is_regular_file(fileEc);
      if (fileEc) {
        if (isImage(it->path()))
          problems.add(Text("predict.cannot_read",
                            {{"path", it->path().string()}, {"reason", fileEc.message()}}));
        continue;
      }
      if (regular && isImage(it->path())) files.push_back(it->path());
    }
    if (ec)
      problems.add(Text("predict.folder_unlisted", {{"path", source.string()}, {"reason", ec.message()}}));
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(source, ec)) {
    files.push_back(source);
  } else {
    return std::nullopt;
  }
  return files;
}

/// The image decoded as BGR, or empty with `why` saying what went wrong (the decoder's own
/// words as they are).
cv::Mat readPredictImage(const fs::path& file, Text& why) {
  std::vector<uint8_t> bytes;
  cv::Mat bgr;
  const auto notReadable = [&](const std::string& detail) {
    return Text("predict.not_readable", {{"path", file.string()}, {"detail", detail}});
  };
  why = notReadable("");
  try {
    std::string problem;
    if (data::readFileBytes(file.string(), bytes)) bgr = data::decodeImageBgr(bytes, 1, &problem);
    if (!problem.empty()) why = notReadable(": " + problem);
  } catch (const std::exception& e) {  // OpenCV's assertions name no file
    const std::string what = e.what();
    why = notReadable(" (" + what.substr(0, what.find('\n')) + ")");
    bgr = cv::Mat();
  }
  return bgr;
}

/// The detections kept for one letterboxed image: (n, 6) x1 y1 x2 y2 conf cls, float, CPU.
torch::Tensor predictOne(model::YoloImpl& model, const PredictInput& in,
                         const torch::Device& device, const PredictRequest& req) {
  auto x = in.x.to(device);
  auto feats = model.forward(x);
  return nonMaxSuppression(model::decodePredictions(model, feats), req.conf, req.iou, req.maxDet)[0]
      .to(torch::kCPU, torch::kFloat)
      .contiguous();
}

/// Writes `kept` (letterbox pixels) as CSV rows of `name` in the image's pixels and draws each
/// box with its class name and score on `bgr`; returns how many.
int64_t recordDetections(const torch::Tensor& kept, const PredictInput& in, const std::string& name,
                         const std::vector<std::string>& names, std::ostream& csv, cv::Mat& bgr) {
  const double r = in.ratio;
  const int padX = in.padX, padY = in.padY;
  auto d = kept.accessor<float, 2>();
  int64_t detections = 0;
  for (int64_t k = 0; k < kept.size(0); ++k) {
    const double x1 = std::clamp((d[k][0] - padX) / r, 0.0, static_cast<double>(bgr.cols));
    const double y1 = std::clamp((d[k][1] - padY) / r, 0.0, static_cast<double>(bgr.rows));
    const double x2 = std::clamp((d[k][2] - padX) / r, 0.0, static_cast<double>(bgr.cols));
    const double y2 = std::clamp((d[k][3] - padY) / r, 0.0, static_cast<double>(bgr.rows));
    const int cls = static_cast<int>(d[k][5]);
    const float score = d[k][4];
    writePredictionRow(csv, name, cls, score, x1, y1, x2, y2);
    char label[128];
    std::snprintf(label, sizeof label, "%s %.2f",
                  cls < static_cast<int>(names.size()) ? names[static_cast<size_t>(cls)].c_str()
                                                       : std::to_string(cls).c_str(),
                  score);
    drawLabelledBox(bgr, x1, y1, x2, y2, cls, label);
    ++detections;
  }
  return detections;
}

/// Writes the annotated image to `outFile` atomically, encoded as its extension says (JPEG
/// without OpenCV's imgcodecs); a failure goes to `problems`.
void writeAnnotated(const fs::path& outFile, const cv::Mat& bgr, const fs::path& file,
                    Problems& problems) {
  std::error_code ec;
  fs::create_directories(outFile.parent_path(), ec);
  std::vector<uchar> encoded;
  std::string ext = outFile.extension().string();
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  bool encodedOk = false;
  if (ext.empty() || ext == ".jpg" || ext == ".jpeg") {
    encoded = data::encodeJpegBgr(bgr, 95);
    encodedOk = true;
  }
#ifdef STAVE_HAVE_IMGCODECS
  else {
    encodedOk = cv::imencode(ext, bgr, encoded);
  }
#endif
  if (!encodedOk) {
    problems.add(Text("predict.cannot_encode", {{"path", file.string()}}));
  } else if (auto s =
                 writeFileAtomic(outFile.string(), std::string(encoded.begin(), encoded.end()));
             !s) {
    problems.add(s.errors());
  }
}

}  // namespace

void drawLabelledBox(cv::Mat& bgr, double x1, double y1, double x2, double y2, int cls,
                     const std::string& label) {
  const cv::Scalar colour = classColour(cls);
  const int thickness = std::max(1, static_cast<int>(std::lround((bgr.cols + bgr.rows) * 0.002)));
  cv::rectangle(bgr, cv::Point(static_cast<int>(x1), static_cast<int>(y1)),
                cv::Point(static_cast<int>(x2), static_cast<int>(y2)), colour, thickness);
  if (label.empty()) return;
  int baseline = 0;
  const double fontScale = std::max(0.35, thickness / 3.0);
  const cv::Size ts = cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, fontScale, 1, &baseline);
  const int ty = std::max(static_cast<int>(y1), ts.height + 2);
  cv::rectangle(bgr, cv::Point(static_cast<int>(x1), ty - ts.height - 2),
                cv::Point(static_cast<int>(x1) + ts.width, ty + baseline - 2), colour, cv::FILLED);
  cv::putText(bgr, label, cv::Point(static_cast<int>(x1), ty - 2), cv::FONT_HERSHEY_SIMPLEX,
              fontScale, cv::Scalar(255, 255, 255), 1, cv::LINE_AA);
}

Result<nlohmann::json> validateWeights(const ValRequest& req) {
  auto device = pickDevice(req.device);
  if (!device) return device.errors();
  auto precision = resolvePrecision(req.precision, true, device.value());
  if (!precision) return precision.errors();
  const bool channelsLast = resolveChannelsLast(req.channelsLast, device.value());
  auto lm = loadWeights(req.weights, device.value());
  if (!lm) return lm.errors();
  if (channelsLast) toChannelsLast(*lm->model);
  auto spec = data::loadDataYaml(req.data);
  if (!spec) return spec.errors();
  if (spec->nc() != lm->meta.nc) {
    return Error{req.data, 0, "names",
                 "the dataset has " + std::to_string(spec->nc()) + " classes, the weights " +
                     std::to_string(lm->meta.nc)};
  }
  auto index = data::scanSplit(spec.value(), req.split);
  if (!index) return index.errors();
  if (index->images.empty()) return Error{req.data, 0, req.split, "the split has no usable images"};
  data::Loader loader(index.value(), valLoaderOptions(req, lm.value(), channelsLast));
  ValidationOptions vo;
  vo.conf = req.conf;
  vo.iou = req.iou;
  vo.maxDet = req.maxDet;
  vo.device = device.value();
  vo.precision = precision.value();
  vo.channelsLast = channelsLast;
  vo.apRule = req.apRule;
  std::vector<SavedDetection> saved;
  if (!req.savePreds.empty()) vo.savedDetections = &saved;
  ValidationViews views;
  if (!req.plots.empty()) vo.views = &views;
  auto v = validate(*lm->model, loader, static_cast<int>(lm->meta.nc), vo, nullptr);
  if (!req.plots.empty()) {
    std::vector<std::string> paths;
    for (const auto& im : index->images) paths.push_back(im.imagePath);
    if (auto st = writeValidationViews(views, req.plots, paths, spec->names); !st)
      return st.errors();
  }
  if (!req.savePreds.empty()) {
    if (auto st = savePredictions(req.savePreds, saved); !st) return st.errors();
  }
  nlohmann::json j;
  j["weights"] = req.weights;
  j["data"] = req.data;
  j["split"] = req.split;
  j["images"] = v.images;
  j["precision"] = v.precision;
  j["recall"] = v.recall;
  j["map50"] = v.map50;
  j["map5095"] = v.map5095;
  j["ap_rule"] = apRuleName(req.apRule);
  j["seconds"] = v.seconds;
  j["compute"] = {{"precision", precisionName(precision.value())}, {"channels_last", channelsLast}};
  if (!req.plots.empty()) j["plots"] = req.plots;
  if (!req.savePreds.empty()) {
    j["saved_predictions"] = req.savePreds;
    j["predictions"] = saved.size();
  }
  j["per_class"] = perClassJson(v.perClass, spec.value());
  return j;
}

Result<nlohmann::json> compareWeights(const std::string& a, const std::string& b) {
  auto fa = CheckpointReader::open(a), fb = CheckpointReader::open(b);
  if (!fa) return fa.errors();
  if (!fb) return fb.errors();
  const CheckpointMeta* ma = &fa->meta();
  const CheckpointMeta* mb = &fb->meta();
  if (ma->scale != mb->scale || ma->nc != mb->nc) {
    return Error{b, 0, "",
                 "a different model (" + mb->scale + ", nc " + std::to_string(mb->nc) + ") than " +
                     a + " (" + ma->scale + ", nc " + std::to_string(ma->nc) + ")"};
  }
  model::ModelOptions mo;
  mo.scale = ma->scale;
  mo.nc = static_cast<int>(ma->nc);
  model::Yolo modelA(mo), emaA(mo), modelB(mo), emaB(mo);
  if (auto r = fa->restore({modelA.get(), emaA.get(), nullptr}, false); !r) return r.errors();
  if (auto r = fb->restore({modelB.get(), emaB.get(), nullptr}, false); !r) return r.errors();
  auto maxDiff = [](torch::nn::Module& x, torch::nn::Module& y, int64_t& count) {
    double worst = 0;
    auto tx = stateTensors(x), ty = stateTensors(y);
    count = static_cast<int64_t>(tx.size());
    for (size_t i = 0; i < tx.size(); ++i) {
      worst = std::max(
          worst, (tx[i].to(torch::kDouble) - ty[i].to(torch::kDouble)).abs().max().item<double>());
    }
    return worst;
  };
  int64_t count = 0;
  nlohmann::json j;
  j["model_max_abs_diff"] = maxDiff(*modelA, *modelB, count);
  j["ema_max_abs_diff"] = maxDiff(*emaA, *emaB, count);
  j["tensors"] = count;
  j["epoch_a"] = ma->epoch;
  j["epoch_b"] = mb->epoch;
  return j;
}

Result<nlohmann::json> weightNorms(const std::string& path) {
  auto f = CheckpointReader::open(path);
  if (!f) return f.errors();
  const CheckpointMeta& m = f->meta();
  model::ModelOptions mo;
  mo.scale = m.scale;
  mo.nc = static_cast<int>(m.nc);
  model::Yolo model(mo), ema(mo);
  if (auto r = f->restore({model.get(), ema.get(), nullptr}, false); !r) return r.errors();
  // In double, tensor by tensor in the state's order: the same weights give the same numbers.
  const auto norms = [](torch::nn::Module& x, double& total) {
    std::vector<double> out;
    double sq = 0;
    for (const auto& t : stateTensors(x)) {
      const double n = t.to(torch::kDouble).norm().item<double>();
      out.push_back(n);
      sq += n * n;
    }
    total = std::sqrt(sq);
    return out;
  };
  nlohmann::json j;
  double modelL2 = 0, emaL2 = 0;
  j["model_tensor_l2"] = norms(*model, modelL2);
  j["ema_tensor_l2"] = norms(*ema, emaL2);
  j["model_l2"] = modelL2;
  j["ema_l2"] = emaL2;
  j["tensors"] = j["ema_tensor_l2"].size();
  j["epoch"] = m.epoch;
  return j;
}

PredictInput letterboxForPredict(const cv::Mat& bgr, int imgsz) {
  PredictInput in;
  in.ratio = std::min(static_cast<double>(imgsz) / bgr.cols, static_cast<double>(imgsz) / bgr.rows);
  const int nw = std::max(1, static_cast<int>(std::lround(bgr.cols * in.ratio)));
  const int nh = std::max(1, static_cast<int>(std::lround(bgr.rows * in.ratio)));
  in.padX = (imgsz - nw) / 2;
  in.padY = (imgsz - nh) / 2;
  cv::Mat resized, canvas(imgsz, imgsz, CV_8UC3, cv::Scalar(114, 114, 114));
  cv::resize(bgr, resized, cv::Size(nw, nh), 0, 0, cv::INTER_LINEAR);
  resized.copyTo(canvas(cv::Rect(in.padX, in.padY, nw, nh)));
  cv::cvtColor(canvas, canvas, cv::COLOR_BGR2RGB);
  in.x = torch::from_blob(canvas.data, {1, imgsz, imgsz, 3}, torch::kUInt8)
             .permute({0, 3, 1, 2})
             .to(torch::kFloat)
             .div_(255.0)
             .contiguous();
  return in;
}

Result<nlohmann::json> predictImages(const PredictRequest& req) {
  auto device = pickDevice(req.device);
  if (!device) return device.errors();
  auto lm = loadWeights(req.weights, device.value());
  if (!lm) return lm.errors();
  lm->model->foldBatchNorm();  // inference only: the BatchNorms folded into the convolutions
  Problems problems;
  const fs::path source(req.source);
  auto sources = predictSources(source, problems);
  if (!sources) return textError(req.source, 0, "source", Text("predict.no_source"));
  const std::vector<fs::path>& files = *sources;
  if (files.empty()) return textError(req.source, 0, "source", Text("predict.no_images"));
  std::error_code ec;
  fs::create_directories(req.outDir, ec);
  if (ec) return Error{req.outDir, 0, "out", "cannot create the folder: " + ec.message()};

  const int imgsz = req.imgsz > 0 ? req.imgsz : static_cast<int>(lm->meta.imgsz);
  const auto& names = lm->meta.names;
  std::ostringstream csv;
  csv << kPredictionsCsvHeader;
  int64_t detections = 0, images = 0;
  const auto start = std::chrono::steady_clock::now();
  torch::NoGradGuard noGrad;
  for (const auto& file : files) {
    Text why;
    cv::Mat bgr = readPredictImage(file, why);
    if (bgr.empty()) {
      problems.add(why);
      continue;
    }
    const PredictInput in = letterboxForPredict(bgr, imgsz);
    auto kept = predictOne(*lm->model, in, device.value(), req);
    // Lexically: fs::relative resolves symbolic links, and a linked image's name would climb out
    // of --out ("../data/images/x.jpg"), its annotated copy written over the image itself.
    const std::string name = fs::is_directory(source)
                                 ? file.lexically_relative(source).string()
                                 : file.filename().string();
    detections += recordDetections(kept, in, name, names, csv, bgr);
    writeAnnotated(fs::path(req.outDir) / name, bgr, file, problems);
    ++images;
  }
  const std::string csvPath = (fs::path(req.outDir) / "predictions.csv").string();
  if (auto s = writeFileAtomic(csvPath, csv.str()); !s) return s.errors();
  nlohmann::json j;
  j["images"] = images;
  j["detections"] = detections;
  j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  j["csv"] = csvPath;
  j["names"] = names;  // the checkpoint's classes: the studio labels the boxes with them
  j["problems"] = problems.english;
  j["problems_text"] = problems.text;
  return j;
}

}  // namespace stave::train
