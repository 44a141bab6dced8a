#include "core/studio/project/new_project.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <yaml-cpp/yaml.h>

#include "core/base/atomic_file.h"
#include "core/config/export.h"
#include "core/config/project.h"
#include "core/config/yaml_emit.h"
#include "core/data/dataset.h"
#include "core/data/dataset_report.h"
#include "core/studio/engine_text.h"
#include "core/studio/run/child_process.h"
#include "core/studio/run/run_controller.h"

namespace stave::studio {
namespace {
const QStringList kImageFilters{"*.jpg", "*.jpeg", "*.png", "*.bmp",  "*.webp",
                                "*.tif", "*.tiff", "*.JPG", "*.JPEG", "*.PNG"};

// The highest class id in a label file (-1 when none is readable).
int maxClassIn(const QString& labelFile) {
  QFile f(labelFile);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return -1;
  int best = -1;
  while (!f.atEnd()) {
    const QByteArray line = f.readLine(4096).trimmed();
    if (line.isEmpty()) continue;
    bool ok = false;
    const int id = line.split(' ').first().toInt(&ok);
    if (ok && id >= 0 && id < 100000) best = std::max(best, id);
  }
  return best;
}
}  // namespace

ImagesFolder inspectImagesFolder(const QString& dir, int maxImages) {
  ImagesFolder out;
  const QFileInfo info(dir);
  if (!info.isDir()) {
    out.problem = QCoreApplication::translate("NewProject", "%1 is not a folder").arg(dir);
    return out;
  }
  out.images = info.absoluteFilePath();
  QDir images(out.images);
  // images/ under a dataset root: data.yaml goes to the root; train/val subfolders when present.
  if (images.dirName() == QLatin1String("images")) {
    QDir root = images;
    root.cdUp();
    out.root = root.absolutePath();
    const bool split = images.exists(QStringLiteral("train"));
    out.train = split ? QStringLiteral("images/train") : QStringLiteral("images");
    out.val =
        split && images.exists(QStringLiteral("val")) ? QStringLiteral("images/val") : out.train;
  } else {
    out.root = out.images;
    out.train = out.val = QStringLiteral(".");
    const bool split = images.exists(QStringLiteral("images/train"));
    if (split) {
      out.train = QStringLiteral("images/train");
      out.val =
          images.exists(QStringLiteral("images/val")) ? QStringLiteral("images/val") : out.train;
    } else if (images.exists(QStringLiteral("images"))) {
      out.train = out.val = QStringLiteral("images");
    }
  }
  QDirIterator it(out.images, kImageFilters, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext() && out.imageCount < maxImages) {
    const QString image = it.next();
    ++out.imageCount;
    const QString label = QString::fromStdString(data::labelPathFor(image.toStdString()));
    if (QFileInfo::exists(label)) {
      ++out.labelCount;
      out.maxClassId = std::max(out.maxClassId, maxClassIn(label));
    }
  }
  if (out.imageCount == 0)
    out.problem = QCoreApplication::translate("NewProject", "no images (.jpg, .png, …) in %1")
                      .arg(out.images);
  else if (out.labelCount == 0)
    out.problem = QCoreApplication::translate(
                      "NewProject",
                      "%1 images but no YOLO label files: expected labels/… beside images/… "
                      "(one .txt per image)")
                      .arg(out.imageCount);
  return out;
}

std::string dataYamlText(const ImagesFolder& folder, const QStringList& names) {
  YAML::Emitter out;
  config::emitComment(out, "Written by the Stave studio's new-project wizard.");
  out << YAML::BeginMap;
  out << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << folder.root.toStdString();
  out << YAML::Key << "train" << YAML::Value << YAML::DoubleQuoted << folder.train.toStdString();
  out << YAML::Key << "val" << YAML::Value << YAML::DoubleQuoted << folder.val.toStdString();
  out << YAML::Key << "names" << YAML::Value << YAML::BeginMap;
  for (int i = 0; i < names.size(); ++i)
    out << YAML::Key << i << YAML::Value << YAML::DoubleQuoted << names[i].toStdString();
  out << YAML::EndMap << YAML::EndMap;
  return config::emittedText(out);
}

namespace {

// The wizard's own words in the UI language (they reach no log).
std::string said(const QString& text) {
  return text.toStdString();
}

}  // namespace

Result<std::string> writeDataYaml(const ImagesFolder& folder, const QStringList& names) {
  const std::string path = QDir(folder.root).filePath(QStringLiteral("data.yaml")).toStdString();
  if (names.isEmpty()) return Error{path, 0, "names", said(QCoreApplication::translate("NewProject", "at least one class name is needed"))};
  for (int i = 0; i < names.size(); ++i)
    if (names[i].trimmed().isEmpty())
      return Error{path, 0, "names", said(QCoreApplication::translate("NewProject", "class %1 has no name").arg(i))};
  if (folder.maxClassId >= names.size())
    return Error{path, 0, "names",
                 said(QCoreApplication::translate("NewProject", "the labels use class %1 but only %2 names were given")
                          .arg(folder.maxClassId)
                          .arg(names.size()))};
  if (QFileInfo::exists(QString::fromStdString(path)))
    return Error{path, 0, "",
                 said(QCoreApplication::translate("NewProject", "a data.yaml already exists here; choose it as the dataset instead"))};
  if (auto st = writeFileAtomic(path, dataYamlText(folder, names)); !st) return st.errors();
  return path;
}

namespace {

// The report in the studio's language, line by line; its English where a line holds a message
// this studio does not know.
QString reportText(const data::DatasetCheck& check) {
  QStringList lines;
  for (const auto& line : check.lines) {
    const QString text = line.text.empty() ? QString() : engineText(line.text);
    if (!line.text.empty() && text.isEmpty()) return QString::fromStdString(check.text);
    lines << QString(line.indent, QLatin1Char(' ')) + text;
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace

DatasetCheckResult checkDatasetFile(const QString& dataYaml) {
  DatasetCheckResult out;
  try {
    const auto check = data::checkDataset(dataYaml.toStdString(), false);
    out.exitCode = check.exitCode;
    out.summary = reportText(check);
    // What the wizard's proposals need: the train split's size and its images' size.
    const auto& train = check.report.value("splits", nlohmann::json::object()).value("train", nlohmann::json::object());
    out.trainImages = train.value("images", int64_t{0});
    const auto& w = train.value("image_width", nlohmann::json());
    const auto& h = train.value("image_height", nlohmann::json());
    if (w.is_object() && h.is_object())
      out.imageSide = std::max(w.value("mean", 0.0), h.value("mean", 0.0));
  } catch (const std::exception& e) {
    out.exitCode = 2;
    out.summary = engineText(Text("data.check_failed", {{"reason", e.what()}}));
  }
  return out;
}

Result<std::string> datasetOfUltralyticsArgs(const QString& argsYaml) {
  auto text = readFile(argsYaml.toStdString());
  if (!text) return text.errors();
  auto imported = config::importUltralytics(text.value(), argsYaml.toStdString());
  if (!imported) return imported.errors();
  const QString data = QString::fromStdString(imported->config.getString("data"));
  if (data.isEmpty())
    return Error{argsYaml.toStdString(), 0, "data",
                 said(QCoreApplication::translate("NewProject", "names no dataset; choose its data.yaml"))};
  const QString resolved =
      QFileInfo(data).isAbsolute() ? data : QFileInfo(argsYaml).absoluteDir().filePath(data);
  if (!QFileInfo(resolved).isFile())
    return Error{argsYaml.toStdString(), 0, "data",
                 said(QCoreApplication::translate("NewProject", "dataset '%1' not found here (Ultralytics' built-in names such as "
                          "coco8.yaml are not files); choose its data.yaml")
                          .arg(data))};
  return QFileInfo(resolved).absoluteFilePath().toStdString();
}

QString startCheckpointProblem(const QString& path) {
  const QString p = path.trimmed();
  if (p.isEmpty())
    return QCoreApplication::translate("NewProject",
                                       "Choose the checkpoint file (.pt) to start from.");
  if (!p.endsWith(QLatin1String(".pt")))
    return QCoreApplication::translate("NewProject",
                                       "%1 is not a checkpoint: expected a .pt file (Stave's or "
                                       "Ultralytics', such as yolo11n.pt)")
        .arg(p);
  const QFileInfo info(p);
  if (info.isDir())
    return QCoreApplication::translate("NewProject", "%1 is a folder, not a checkpoint file")
        .arg(p);
  if (!info.exists())
    return QCoreApplication::translate(
               "NewProject",
               "%1 does not exist. Stave does not download weights: Ultralytics publishes "
               "yolo11n.pt and the others at github.com/ultralytics/assets/releases.")
        .arg(p);
  if (!info.isReadable())
    return QCoreApplication::translate("NewProject", "%1 cannot be read").arg(p);
  return {};
}

Result<std::string> createNewProject(const NewProjectRequest& r) {
  std::vector<Error> errors;
  config::RunConfig imported = config::RunConfig::defaults();
  if (!r.ultralyticsArgs.isEmpty()) {
    auto text = readFile(r.ultralyticsArgs.toStdString());
    if (!text) return text.errors();
    auto im = config::importUltralytics(text.value(), r.ultralyticsArgs.toStdString());
    if (!im) return im.errors();
    imported = im->config;
    imported.set("data", std::string());  // the project's dataset is used
  }
  // A checkpoint to start from is checked before anything is written.
  QString startFrom = r.startFrom.trimmed();
  if (config::isCheckpointModel(startFrom.toStdString())) {
    if (const QString problem = startCheckpointProblem(startFrom); !problem.isEmpty())
      return Error{startFrom.toStdString(), 0, "model", problem.toStdString()};
    startFrom = QFileInfo(startFrom).absoluteFilePath();
  }
  auto project =
      config::createProject(r.folder.toStdString(), r.name.toStdString(), r.dataYaml.toStdString());
  if (!project) return project.errors();
  std::vector<std::string> kv;
  for (const QString& s : r.settings) kv.push_back(s.toStdString());
  if (!startFrom.isEmpty()) kv.push_back("model=" + startFrom.toStdString());
  if (!kv.empty())
    if (auto st = config::applyOverrides(imported, kv); !st) return st.errors();
  if (!r.ultralyticsArgs.isEmpty() || !kv.empty()) {
    project->setConfig("default", imported);
    if (auto st = config::saveProject(project.value()); !st) return st.errors();
  }
  return project->path;
}

DemoProjectMaker::DemoProjectMaker(QObject* parent)
    : QObject(parent),
      m_exe(RunController::findTrainExecutable()),
      // Destroyed with a step running: SIGTERM, then SIGKILL after 2 s (a half-made demo is made
      // again next time: there is no demo.stave yet).
      m_child(new ChildProcess(ChildProcess::Lifetime::Attached, 2000, this)) {}

DemoProjectMaker::~DemoProjectMaker() = default;

QString DemoProjectMaker::defaultFolder() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
      .filePath(QStringLiteral("demo"));
}

bool DemoProjectMaker::busy() const { return m_child->running(); }

void DemoProjectMaker::start(const QString& dir) {
  m_dir = QFileInfo(dir).absoluteFilePath();
  const QString project = QDir(m_dir).filePath(QStringLiteral("demo.stave"));
  if (QFileInfo::exists(project)) {
    emit ready(project);
    return;
  }
  if (m_exe.isEmpty() || !QFileInfo(m_exe).isExecutable()) {
    emit failed(tr("stave-train was not found beside the studio or on PATH"));
    return;
  }
  const QString data = QDir(m_dir).filePath(QStringLiteral("data"));
  // The settings scripts/run gives the demo: the nano model learns the shapes in minutes on a CPU.
  auto makeProject = [this, data, project] {
    step({QStringLiteral("new-project"), m_dir, QStringLiteral("--name"), QStringLiteral("demo"),
          QStringLiteral("--data"), QDir(data).filePath(QStringLiteral("data.yaml")),
          QStringLiteral("model=yolov8n"), QStringLiteral("imgsz=160"), QStringLiteral("batch=16"),
          QStringLiteral("nbs=16"), QStringLiteral("epochs=10"), QStringLiteral("optimizer=SGD"),
          QStringLiteral("lr0=0.01"), QStringLiteral("warmup_epochs=0"),
          QStringLiteral("close_mosaic=2"), QStringLiteral("workers=2")},
         tr("creating the demo project"), [this, project] { emit ready(project); });
  };
  if (QFileInfo::exists(QDir(data).filePath(QStringLiteral("data.yaml")))) {
    makeProject();
    return;
  }
  step({QStringLiteral("make-demo"), QStringLiteral("--out"), data}, tr("making the demo images"),
       makeProject);
}

void DemoProjectMaker::step(const QStringList& args, const QString& what,
                            std::function<void()> next) {
  emit progress(what);
  m_process = m_child->newProcess();
  m_process->setProcessChannelMode(QProcess::MergedChannels);
  connect(m_process, &QProcess::errorOccurred, this, [this, what](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) emit failed(tr("%1: cannot start %2").arg(what, m_exe));
  });
  connect(m_process, &QProcess::finished, this,
          [this, what, next](int code, QProcess::ExitStatus status) {
            const QString out = QString::fromUtf8(m_process->readAll()).trimmed();
            if (m_child->outcome(code, status) != ProcessOutcome::Completed) {
              emit failed(tr("%1 failed: %2").arg(what, out.isEmpty() ? tr("no output") : out));
              return;
            }
            next();
          });
  m_process->start(m_exe, args);
}

}  // namespace stave::studio
