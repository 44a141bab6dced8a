#pragma once
// What the new-project wizard does besides asking: look at an images folder with YOLO labels
// and write a data.yaml for it, check a dataset, import an Ultralytics args.yaml, create the
// project; and make the demo project as scripts/run does. The file work here is meant to run
// off the GUI thread (BackgroundJob); the demo runs stave-train asynchronously.

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "core/base/result.h"

namespace stave::studio {

class ChildProcess;

/// An images folder as the wizard found it.
struct ImagesFolder {
  QString images;       ///< the folder given (absolute)
  QString root;         ///< where data.yaml goes: the parent of `images/`, else the folder itself
  QString train;        ///< train images, relative to root ("images/train" or "images")
  QString val;          ///< val images, relative to root (the train folder when there is none)
  int imageCount = 0;   ///< image files found (recursively)
  int labelCount = 0;   ///< label files found for them
  int maxClassId = -1;  ///< highest class id in the labels (-1: none)
  QString problem;      ///< why the folder cannot be used ("" = usable)
};

/// Looks at `dir`: image files, their labels (images/… ↔ labels/…, or a .txt beside each image)
/// and the highest class id. Stops counting at `maxImages` (the count says so).
ImagesFolder inspectImagesFolder(const QString& dir, int maxImages = 200000);

/// The text of a data.yaml for `folder` with these class names.
std::string dataYamlText(const ImagesFolder& folder, const QStringList& names);

/// Writes root/data.yaml atomically; refuses to replace an existing one. Returns its path.
Result<std::string> writeDataYaml(const ImagesFolder& folder, const QStringList& names);

/// The outcome of checking a dataset before the project is made.
struct DatasetCheckResult {
  int exitCode = 0;       ///< 0 clean, 1 problems (usable), 2 unusable
  QString summary;        ///< counts per split and the problems, as `stave-train check-dataset` says
  qint64 trainImages = 0; ///< images of the train split
  double imageSide = 0;   ///< mean of the images' longer side (0 = unknown)
};
/// Checks a data.yaml (all splits; no full decode). Never throws for bad input.
DatasetCheckResult checkDatasetFile(const QString& dataYaml);

/// What the wizard asks for.
struct NewProjectRequest {
  QString folder;           ///< where NAME.stave goes (created when missing)
  QString name;             ///< project name
  QString dataYaml;         ///< the dataset
  QString ultralyticsArgs;  ///< an args.yaml whose settings become the config "default" ("" = none)
  QStringList settings;     ///< key=value for the config "default" (the wizard's proposals)
  /// What the config "default" starts from, its `model`: a network ("yolo11n", random weights)
  /// or a checkpoint file (.pt, Stave's or Ultralytics': network and weights, made absolute).
  /// Applied after `settings`; "" = as they (or the defaults) say.
  QString startFrom;
};
/// Why the file `path` cannot start a project ("" when it can): it must end in .pt and exist
/// (Stave does not download weights). Translated; a few file reads.
QString startCheckpointProblem(const QString& path);
/// The dataset an Ultralytics args.yaml names (its `data` key, relative to the file's folder).
Result<std::string> datasetOfUltralyticsArgs(const QString& argsYaml);
/// Creates the project (config::createProject; with the args.yaml's settings when given).
/// Returns the project file's path.
Result<std::string> createNewProject(const NewProjectRequest& request);

/// Makes the demo project on first use, as scripts/run does (`stave-train make-demo`, then
/// `new-project` with settings that train in minutes on a CPU), in `dir`; later uses find it.
class DemoProjectMaker : public QObject {
  Q_OBJECT
 public:
  explicit DemoProjectMaker(QObject* parent = nullptr);
  ~DemoProjectMaker() override;
  /// The default folder: the per-user application data folder + "/demo".
  static QString defaultFolder();
  /// The stave-train to run (default: RunController::findTrainExecutable()).
  void setExecutable(const QString& exe) { m_exe = exe; }
  /// Starts (or finds) the demo in `dir`; ready() or failed() follows.
  void start(const QString& dir);
  bool busy() const;

 signals:
  void ready(const QString& projectFile);
  void failed(const QString& message);
  void progress(const QString& text);

 private:
  void step(const QStringList& args, const QString& what, std::function<void()> next);
  QString m_exe;
  QString m_dir;
  ChildProcess* m_child;           ///< ends a step still running when the maker is destroyed
  QProcess* m_process = nullptr;  ///< the step running (m_child's)
};

}  // namespace stave::studio
