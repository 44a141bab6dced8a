// The schema's rows: one ParamSpec per run-config key, in display order. A new parameter is one
// row here; what it is read by, whether a resume may change it and its defaults all live in the
// row (tests/unit/train/tst_every_setting.cpp fails for a row that nothing reads).
#include "core/config/schema.h"

#include <limits>

namespace stave::config {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

using G = ParamGroup;
using T = ParamType;

ParamSpec boolP(const char* name, bool def, G g, const char* help, bool ul) {
  return ParamSpec{name, T::Bool, def, -kInf, kInf, {}, g, help, ul, false};
}
ParamSpec intP(const char* name, int64_t def, double lo, double hi, G g, const char* help,
               bool ul) {
  return ParamSpec{name, T::Int, def, lo, hi, {}, g, help, ul, false};
}
ParamSpec floatP(const char* name, double def, double lo, double hi, G g, const char* help,
                 bool ul) {
  return ParamSpec{name, T::Float, def, lo, hi, {}, g, help, ul, false};
}
ParamSpec strP(const char* name, const char* def, G g, const char* help, bool ul) {
  return ParamSpec{name, T::String, std::string(def), -kInf, kInf, {}, g, help, ul, false};
}
ParamSpec pathP(const char* name, G g, const char* help, bool ul) {
  return ParamSpec{name, T::Path, std::string(), -kInf, kInf, {}, g, help, ul, false};
}
ParamSpec enumP(const char* name, const char* def, std::vector<std::string> choices, G g,
                const char* help, bool ul) {
  return ParamSpec{name, T::Enum, std::string(def), -kInf, kInf, std::move(choices), g, help,
                   ul,   false};
}

// Marks a row that a resume may change (ParamSpec::resumable).
ParamSpec mayResume(ParamSpec p) {
  p.resumable = true;
  return p;
}

// Ultralytics' names and defaults where it has the parameter (ultralytics/cfg/default.yaml);
// `batch` is per rank in Stave (see derive()).
std::vector<ParamSpec> buildSchema() {
  return {
      // Model
      enumP("model", "yolov8n",
            {"yolov8n", "yolov8s", "yolov8m", "yolov8l", "yolov8x", "yolo11n", "yolo11s", "yolo11m",
             "yolo11l", "yolo11x"},
            G::Model,
            "network, yolov8n/yolo11n (smallest) to yolov8x/yolo11x; a '.yaml' suffix is accepted, "
            "and a checkpoint (.pt, Stave's or Ultralytics') gives architecture and weights",
            true),
      pathP("pretrained", G::Model,
            "checkpoint (.pt, Stave's or Ultralytics') to start from (tensors matching by name "
            "and shape); empty = random weights, or those of a model=.pt",
            true),
      intP("freeze", 0, 0, 23, G::Model,
           "freeze the first N layers of the network (0 = none; yolov8 has 22, yolo11 23 before "
           "the head)",
           true),
      // Data
      pathP("data", G::Data, "dataset description (data.yaml, YOLO format)", true),
      intP("imgsz", 640, 32, 8192, G::Data, "training and validation image size in pixels", true),
      floatP("fraction", 1.0, 0.01, 1.0, G::Data, "fraction of the training images to use", true),
      boolP("single_cls", false, G::Data, "train all classes as one class", true),
      mayResume(enumP("cache", "none", {"none", "ram", "disk"}, G::Data,
                      "cache decoded images in RAM or on disk", true)),
      mayResume(
          floatP("max_bad_images", 0.01, 0.0, 1.0, G::Data,
                 "fail the run when more than this fraction of a split's images cannot be decoded "
                 "(each one is used as a grey image without boxes, with a warning)",
                 false)),
      boolP("rect", true, G::Data,
            "validate in rectangular batches, as Ultralytics does (false: letterbox to squares)",
            false),
      mayResume(intP(
          "workers", 8, 0, 256, G::Data,
          "data loader threads per rank (at most the CPU cores per rank, as Ultralytics caps it)",
          true)),
      mayResume(intP("prefetch", 4, 1, 64, G::Data, "batches prepared ahead per rank", false)),
      mayResume(boolP("persistent_workers", true, G::Data,
                      "keep loader threads alive between epochs", false)),
      // Optimisation
      mayResume(intP("epochs", 100, 1, 100000, G::Optimisation, "number of epochs to train", true)),
      mayResume(floatP("time", 0.0, 0.0, 100000.0, G::Optimisation,
                       "maximum training time in hours, overrides epochs (0 = off)", true)),
      mayResume(intP("patience", 100, 0, 100000, G::Optimisation,
                     "epochs without improvement before stopping early (0 = never)", true)),
      intP("batch", 16, 1, 65536, G::Optimisation,
           "images per batch PER RANK (global batch = batch x world size)", true),
      intP("nbs", 64, 1, 65536, G::Optimisation,
           "nominal batch size: gradients are accumulated up to it", true),
      enumP("optimizer", "auto", {"SGD", "AdamW", "auto"}, G::Optimisation,
            "optimizer; auto picks SGD or AdamW (and lr0) from the run length", true),
      floatP("lr0", 0.01, 0.0, 10.0, G::Optimisation, "initial learning rate", true),
      floatP("lrf", 0.01, 0.0, 1.0, G::Optimisation, "final learning rate as a fraction of lr0",
             true),
      floatP("momentum", 0.937, 0.0, 1.0, G::Optimisation, "SGD momentum / Adam beta1", true),
      floatP("weight_decay", 0.0005, 0.0, 1.0, G::Optimisation,
             "weight decay at the nominal batch size", true),
      floatP("warmup_epochs", 3.0, 0.0, 1000.0, G::Optimisation,
             "warmup length in epochs (fractions allowed)", true),
      floatP("warmup_momentum", 0.8, 0.0, 1.0, G::Optimisation, "momentum at the start of warmup",
             true),
      floatP("warmup_bias_lr", 0.1, 0.0, 10.0, G::Optimisation,
             "bias learning rate at the start of warmup", true),
      boolP("cos_lr", false, G::Optimisation, "cosine learning-rate schedule instead of linear",
            true),
      boolP("scale_lr_with_batch", false, G::Optimisation,
            "scale lr0 by global batch / 64 (linear scaling rule)", false),
      floatP("box", 7.5, 0.0, 1000.0, G::Optimisation, "box (CIoU) loss gain", true),
      floatP("cls", 0.5, 0.0, 1000.0, G::Optimisation, "classification (BCE) loss gain", true),
      floatP("dfl", 1.5, 0.0, 1000.0, G::Optimisation, "distribution focal loss gain", true),
      intP("seed", 0, 0, 4294967295.0, G::Optimisation, "random seed", true),
      boolP("deterministic", true, G::Optimisation, "use deterministic algorithms where possible",
            true),
      mayResume(
          boolP("resume", false, G::Optimisation, "resume from the run's last checkpoint", true)),
      // Augmentation
      floatP("hsv_h", 0.015, 0.0, 1.0, G::Augmentation, "hue jitter (fraction)", true),
      floatP("hsv_s", 0.7, 0.0, 1.0, G::Augmentation, "saturation jitter (fraction)", true),
      floatP("hsv_v", 0.4, 0.0, 1.0, G::Augmentation, "value (brightness) jitter (fraction)", true),
      floatP("degrees", 0.0, 0.0, 180.0, G::Augmentation, "rotation (+/- degrees)", true),
      floatP("translate", 0.1, 0.0, 1.0, G::Augmentation, "translation (+/- fraction)", true),
      floatP("scale", 0.5, 0.0, 0.99, G::Augmentation,
             "scale gain (+/- fraction; augmentation, not the model scale)", true),
      floatP("shear", 0.0, 0.0, 90.0, G::Augmentation, "shear (+/- degrees)", true),
      floatP("perspective", 0.0, 0.0, 0.001, G::Augmentation, "perspective (+/- fraction)", true),
      floatP("flipud", 0.0, 0.0, 1.0, G::Augmentation, "probability of an up-down flip", true),
      floatP("fliplr", 0.5, 0.0, 1.0, G::Augmentation, "probability of a left-right flip", true),
      floatP("mosaic", 1.0, 0.0, 1.0, G::Augmentation, "probability of a 4-image mosaic", true),
      floatP("mixup", 0.0, 0.0, 1.0, G::Augmentation, "probability of mixup", true),
      intP("close_mosaic", 10, 0, 100000, G::Augmentation,
           "turn mosaic off for the last N epochs (0 = never)", true),
      boolP("multi_scale", false, G::Augmentation, "vary the image size +/- 50% per batch", true),
      // Hardware
      mayResume(strP("devices", "", G::Hardware,
                     "GPUs to use: empty = all visible, 'cpu', or a list such as '0,1,3'", false)),
      mayResume(intP("nproc", 1, 1, 1024, G::Hardware, "processes (ranks) per node, one per GPU", false)),
      enumP("precision", "auto", {"auto", "fp32", "fp16", "bf16"}, G::Hardware,
            "compute precision with amp; auto = bf16 on GPUs from Ampere on, fp16 on older "
            "GPUs, fp32 on the CPU (bf16 there is faster but learns less)",
            false),
      boolP("amp", true, G::Hardware, "automatic mixed precision", true),
      enumP("channels_last", "auto", {"auto", "true", "false"}, G::Hardware,
            "channels-last (NHWC) memory format for images and model; auto = on for the CPU, "
            "off on CUDA",
            false),
      mayResume(
          boolP("pin_memory", true, G::Hardware, "collate batches into pinned host memory", false)),
      mayResume(intP("threads", 0, 0, 1024, G::Hardware,
                     "intra-op CPU threads per rank (0 = all cores)", false)),
      // Distributed
      boolP("sync_bn", false, G::Distributed,
            "SyncBatchNorm: BatchNorm over the global batch of all ranks while training", false),
      floatP("bucket_mb", 25.0, 0.01, 4096.0, G::Distributed,
             "gradient bucket size for all-reduce, MiB (PyTorch DDP's bucket_cap_mb)", false),
      mayResume(enumP("nccl_p2p_level", "", {"", "LOC", "NVL", "PIX", "PXB", "PHB", "SYS"},
                      G::Distributed, "NCCL_P2P_LEVEL (empty = NCCL's choice)", false)),
      mayResume(boolP("nccl_shm_disable", false, G::Distributed, "set NCCL_SHM_DISABLE=1", false)),
      mayResume(enumP("nccl_debug", "", {"", "VERSION", "WARN", "INFO", "TRACE"}, G::Distributed,
                      "NCCL_DEBUG level (empty = off)", false)),
      mayResume(intP("nccl_timeout_s", 1800, 1, 604800, G::Distributed,
                     "collective timeout; a rank silent this long counts as hung", false)),
      mayResume(strP("master_addr", "127.0.0.1", G::Distributed,
                     "address of rank 0's rendezvous store", false)),
      mayResume(intP("master_port", 0, 0, 65535, G::Distributed,
                     "rendezvous port (0 = pick a free one)", false)),
      mayResume(strP("socket_ifname", "", G::Distributed,
                     "network interface the ranks talk over (GLOO_SOCKET_IFNAME, "
                     "NCCL_SOCKET_IFNAME; e.g. eth0 or ^docker); empty = the one that routes to "
                     "master_addr",
                     false)),
      mayResume(intP("nnodes", 1, 1, 100000, G::Distributed, "number of nodes (machines)", false)),
      mayResume(intP("node_rank", 0, 0, 99999, G::Distributed, "this node's index, 0 .. nnodes-1",
                     false)),
      // Logging (validation, checkpoints, names)
      mayResume(boolP("val", true, G::Logging, "validate during training", true)),
      mayResume(intP("val_period", 1, 1, 100000, G::Logging, "validate every N epochs", false)),
      mayResume(floatP("conf", 0.001, 0.0, 1.0, G::Logging,
                       "confidence threshold for validation NMS", true)),
      mayResume(floatP("iou", 0.7, 0.0, 1.0, G::Logging, "IoU threshold for validation NMS", true)),
      mayResume(intP("max_det", 300, 1, 100000, G::Logging, "maximum detections per image", true)),
      mayResume(intP("save_period", -1, -1, 100000, G::Logging,
                     "save a checkpoint every N epochs (-1 = only last and best)", true)),
      mayResume(
          strP("name", "", G::Logging,
               "run name, one folder name under project (empty = train); taken names get 2, 3, ...",
               true)),
      mayResume(boolP(
          "exist_ok", false, G::Logging,
          "reuse the run folder of name (or --run-dir) even if it holds a run: the old run is "
          "moved aside to <folder>-replaced-<time> first",
          true)),
      mayResume(strP("project", "", G::Logging, "folder for runs (empty = beside the project file)",
                     true)),
      mayResume(floatP(
          "sample_period_s", 0.5, 0.0, 3600.0, G::Logging,
          "seconds between the node's GPU and system samples in the event log (0 = off)", true)),
      mayResume(
          floatP("report_period_s", 30.0, 0.0, 86400.0, G::Logging,
                 "seconds between the straggler and doctor reports (diagnosis events) of a run; "
                 "0 = only the doctor's final report",
                 false)),
      mayResume(
          intP("metrics_port", 0, 0, 65535, G::Logging,
               "serve Prometheus metrics of the run on this port (0 = off); a port in use stops "
               "the run before it starts",
               false)),
      mayResume(strP("metrics_addr", "127.0.0.1", G::Logging,
                     "address the metrics port listens on (0.0.0.0 = every interface)", false)),
      mayResume(
          boolP("tensorboard", true, G::Logging,
                "also write TensorBoard event files (losses, metrics, lr, samples/s, GPU samples) "
                "to <run>/tb/, for tensorboard --logdir",
                true)),
  };
}
}  // namespace

const std::vector<ParamSpec>& runConfigSchema() {
  static const std::vector<ParamSpec> schema = buildSchema();
  return schema;
}

}  // namespace stave::config
