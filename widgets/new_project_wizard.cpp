#include "widgets/new_project_wizard.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <functional>

#include "core/config/schema.h"
#include "core/studio/engine_text.h"
#include "core/studio/background_job.h"

namespace stave::widgets {
namespace {
// A page whose completeness (Next/Finish enabled) a function decides.
class CheckedPage : public QWizardPage {
 public:
  std::function<bool()> complete;
  bool isComplete() const override { return complete ? complete() : QWizardPage::isComplete(); }
  void changed() { emit completeChanged(); }
};

QLabel* problemLabel(QWidget* parent) {
  auto* l = new QLabel(parent);
  l->setStyleSheet(QStringLiteral("color: #b00020"));
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}
}  // namespace

NewProjectWizard::NewProjectWizard(QWidget* parent)
    : QWizard(parent), m_job(new studio::BackgroundJob(this)) {
  setWindowTitle(tr("New project"));
  setObjectName(QStringLiteral("newProjectWizard"));
  setWizardStyle(QWizard::ClassicStyle);
  setOption(QWizard::NoBackButtonOnStartPage);
  buildNamePage();
  buildDatasetPage();
  buildClassesPage();
  buildCheckPage();

  connect(this, &QWizard::currentIdChanged, this, [this](int id) {
    if (id == ClassesPage && !m_inspected) inspectFolder();
    if (id == CheckPage) startCheck();
  });
  resize(780, 700);  // the last page: the check, the proposals and Start from
}

void NewProjectWizard::buildNamePage() {
  // 1. Name and folder.
  auto* namePage = new CheckedPage;
  namePage->setTitle(tr("Name and folder"));
  namePage->setSubTitle(
      tr("The project file NAME.stave is made in the folder; runs and the "
         "history are kept beside it."));
  auto* nameForm = new QFormLayout(namePage);
  m_name = new QLineEdit(namePage);
  m_name->setObjectName(QStringLiteral("name"));
  nameForm->addRow(tr("Name:"), m_name);
  m_folder = new QLineEdit(namePage);
  m_folder->setObjectName(QStringLiteral("folder"));
  m_folder->setText(QDir(QStandardPaths::writableLocation(QStandardPaths::HomeLocation))
                        .filePath(QStringLiteral("stave-projects")));
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(m_folder, 1);
  auto* browseFolder = new QPushButton(tr("Browse…"), namePage);
  folderRow->addWidget(browseFolder);
  nameForm->addRow(tr("Folder:"), folderRow);
  connect(browseFolder, &QPushButton::clicked, this, [this] {
    const QString d =
        QFileDialog::getExistingDirectory(this, tr("Project folder"), m_folder->text());
    if (!d.isEmpty()) m_folder->setText(d);
  });
  connect(m_name, &QLineEdit::textChanged, this, [this, namePage] {
    // The folder follows the name until the user picks one.
    namePage->changed();
  });
  namePage->complete = [this] {
    const QString n = m_name->text().trimmed();
    return !n.isEmpty() && !n.contains(QLatin1Char('/')) && n != QLatin1String(".") &&
           n != QLatin1String("..") && !m_folder->text().trimmed().isEmpty();
  };
  connect(m_folder, &QLineEdit::textChanged, namePage, [namePage] { namePage->changed(); });
  setPage(NamePage, namePage);
}

void NewProjectWizard::buildDatasetPage() {
  // 2. The dataset.
  auto* dataPage = new CheckedPage;
  dataPage->setTitle(tr("Dataset"));
  dataPage->setSubTitle(
      tr("A YOLO-format dataset: its data.yaml, or a folder of images with "
         "their label files, or an Ultralytics args.yaml of an earlier run."));
  auto* dataLayout = new QVBoxLayout(dataPage);
  m_source = new QButtonGroup(dataPage);
  const QString labels[] = {tr("A data.yaml (Ultralytics' dataset description)"),
                            tr("An images folder with YOLO labels (images/… and labels/…)"),
                            tr("An Ultralytics args.yaml to import (its settings and dataset)")};
  for (int i = 0; i < 3; ++i) {
    auto* radio = new QRadioButton(labels[i], dataPage);
    radio->setObjectName(QStringLiteral("source%1").arg(i));
    m_source->addButton(radio, i);
    dataLayout->addWidget(radio);
  }
  m_source->button(DataYaml)->setChecked(true);
  auto* pathRow = new QHBoxLayout;
  m_path = new QLineEdit(dataPage);
  m_path->setObjectName(QStringLiteral("path"));
  pathRow->addWidget(m_path, 1);
  auto* browse = new QPushButton(tr("Browse…"), dataPage);
  pathRow->addWidget(browse);
  dataLayout->addLayout(pathRow);
  m_pathHint = new QLabel(dataPage);
  m_pathHint->setWordWrap(true);
  dataLayout->addWidget(m_pathHint);
  m_datasetProblem = problemLabel(dataPage);
  m_datasetProblem->setObjectName(QStringLiteral("datasetProblem"));
  dataLayout->addWidget(m_datasetProblem);
  dataLayout->addStretch(1);
  auto updateHint = [this] {
    const QString hints[] = {tr("The data.yaml with path, train, val and names."),
                             tr("The images folder (or the dataset folder above images/). The "
                                "wizard asks for the class names and writes a data.yaml there."),
                             tr("args.yaml from an Ultralytics run folder; its `data` must be a "
                                "data.yaml file that exists here.")};
    m_pathHint->setText(hints[m_source->checkedId()]);
    m_datasetProblem->clear();
  };
  connect(m_source, &QButtonGroup::idClicked, this, updateHint);
  updateHint();
  connect(browse, &QPushButton::clicked, this, [this] {
    QString p;
    if (source() == ImagesFolder)
      p = QFileDialog::getExistingDirectory(this, tr("Images folder"), m_path->text());
    else
      p = QFileDialog::getOpenFileName(this, tr("Choose a file"), m_path->text(),
                                       tr("YAML files (*.yaml *.yml);;All files (*)"));
    if (!p.isEmpty()) m_path->setText(p);
  });
  dataPage->complete = [this] { return !m_path->text().trimmed().isEmpty(); };
  connect(m_path, &QLineEdit::textChanged, dataPage, [this, dataPage] {
    m_inspected = false;
    m_datasetProblem->clear();
    dataPage->changed();
  });
  setPage(DatasetPage, dataPage);
}

void NewProjectWizard::buildClassesPage() {
  // 3. Class names (images folder only).
  auto* classesPage = new CheckedPage;
  classesPage->setTitle(tr("Class names"));
  classesPage->setSubTitle(
      tr("Name the classes in the order of their ids, separated by commas. "
         "A data.yaml is written beside the images."));
  auto* classesLayout = new QFormLayout(classesPage);
  m_folderInfo = new QLabel(classesPage);
  m_folderInfo->setWordWrap(true);
  classesLayout->addRow(m_folderInfo);
  m_classes = new QLineEdit(classesPage);
  m_classes->setObjectName(QStringLiteral("classes"));
  classesLayout->addRow(tr("Classes:"), m_classes);
  m_classesProblem = problemLabel(classesPage);
  m_classesProblem->setObjectName(QStringLiteral("classesProblem"));
  classesLayout->addRow(m_classesProblem);
  classesPage->complete = [this] { return m_inspected && m_images.problem.isEmpty(); };
  setPage(ClassesPage, classesPage);
}

void NewProjectWizard::buildCheckPage() {
  // 4. The check.
  auto* checkPage = new CheckedPage;
  checkPage->setTitle(tr("Check the dataset"));
  checkPage->setSubTitle(
      tr("Every split is scanned: counts, classes and every problem found. A "
         "dataset with problems can still be used; bad rows and images are "
         "left out of training."));
  auto* checkLayout = new QVBoxLayout(checkPage);
  m_busy = new QProgressBar(checkPage);
  m_busy->setRange(0, 0);
  checkLayout->addWidget(m_busy);
  m_check = new QPlainTextEdit(checkPage);
  m_check->setObjectName(QStringLiteral("checkText"));
  m_check->setReadOnly(true);
  m_check->setLineWrapMode(QPlainTextEdit::NoWrap);
  checkLayout->addWidget(m_check, 1);
  m_verdict = new QLabel(checkPage);
  m_verdict->setObjectName(QStringLiteral("checkVerdict"));
  m_verdict->setWordWrap(true);
  checkLayout->addWidget(m_verdict);
  m_proposal = new QLabel(checkPage);
  m_proposal->setObjectName(QStringLiteral("proposal"));
  m_proposal->setWordWrap(true);
  m_proposal->setTextFormat(Qt::RichText);
  checkLayout->addWidget(m_proposal);
  m_useProposal = new QCheckBox(tr("Use these settings (they can be changed on the Train page)"),
                                checkPage);
  m_useProposal->setObjectName(QStringLiteral("useProposal"));
  m_useProposal->setChecked(true);
  m_useProposal->hide();
  checkLayout->addWidget(m_useProposal);
  checkLayout->addWidget(buildStartFrom(checkPage));
  checkPage->complete = [this] { return datasetUsable(); };
  setPage(CheckPage, checkPage);
}

QGroupBox* NewProjectWizard::buildStartFrom(QWidget* page) {
  // What the first epoch starts from: Ultralytics users start from yolo11n.pt, not from random
  // weights (a few hundred images learn little from scratch).
  m_startBox = new QGroupBox(tr("Start from"), page);
  m_startBox->setObjectName(QStringLiteral("startFrom"));
  auto* grid = new QGridLayout(m_startBox);
  m_start = new QButtonGroup(m_startBox);
  auto* scratch = new QRadioButton(tr("Random weights (train from scratch), network:"), m_startBox);
  scratch->setObjectName(QStringLiteral("startNetwork"));
  auto* file = new QRadioButton(tr("A checkpoint file (.pt):"), m_startBox);
  file->setObjectName(QStringLiteral("startCheckpoint"));
  m_start->addButton(scratch, StartNetwork);
  m_start->addButton(file, StartCheckpoint);
  scratch->setChecked(true);

  m_network = new QComboBox(m_startBox);
  m_network->setObjectName(QStringLiteral("startNetworkChoice"));
  const config::ParamSpec* model = config::findParam("model");
  for (const std::string& name : model->choices) {
    const QString n = QString::fromStdString(name);
    // The families apart (yolov8…, yolo11…).
    if (m_network->count() > 0 &&
        n.chopped(1) != m_network->itemText(m_network->count() - 1).chopped(1))
      m_network->insertSeparator(m_network->count());
    m_network->addItem(n);
  }
  m_network->setCurrentText(QString::fromStdString(std::get<std::string>(model->defaultValue)));
  m_networkWhy = new QLabel(m_startBox);
  m_networkWhy->setObjectName(QStringLiteral("startNetworkWhy"));
  m_networkWhy->setWordWrap(true);

  m_startFile = new QLineEdit(m_startBox);
  m_startFile->setObjectName(QStringLiteral("startFile"));
  m_startFile->setPlaceholderText(tr("yolo11n.pt, yolov8n.pt or a run's weights/best.pt"));
  auto* browse = new QPushButton(tr("Browse…"), m_startBox);
  browse->setObjectName(QStringLiteral("startBrowse"));
  auto* hint = new QLabel(
      tr("A checkpoint gives the network and its weights: Ultralytics' COCO-pretrained "
         "yolo11n.pt … yolo11x.pt and yolov8n.pt … yolov8x.pt, or an earlier run's best.pt "
         "(Stave's or Ultralytics'). The class outputs start afresh when the dataset has other "
         "classes. Stave does not download weights."),
      m_startBox);
  hint->setWordWrap(true);
  m_startProblem = problemLabel(m_startBox);
  m_startProblem->setObjectName(QStringLiteral("startProblem"));

  grid->addWidget(scratch, 0, 0);
  grid->addWidget(m_network, 0, 1);
  grid->addWidget(m_networkWhy, 1, 1, 1, 3);
  grid->addWidget(file, 2, 0);
  grid->addWidget(m_startFile, 2, 1, 1, 2);
  grid->addWidget(browse, 2, 3);
  grid->addWidget(hint, 3, 0, 1, 4);
  grid->addWidget(m_startProblem, 4, 0, 1, 4);
  grid->setColumnStretch(2, 1);

  connect(m_network, &QComboBox::activated, this, [this, scratch] {
    m_networkChosen = true;
    scratch->setChecked(true);
    m_startProblem->clear();
  });
  connect(m_startFile, &QLineEdit::textEdited, this, [this, file] {
    file->setChecked(true);
    m_startProblem->clear();
  });
  connect(m_start, &QButtonGroup::idClicked, this, [this] { m_startProblem->clear(); });
  connect(browse, &QPushButton::clicked, this, [this, file] {
    const QString p =
        QFileDialog::getOpenFileName(this, tr("Start weights"), m_startFile->text().trimmed(),
                                     tr("Checkpoints (*.pt);;All files (*)"));
    if (p.isEmpty()) return;
    m_startFile->setText(QDir::cleanPath(p));
    file->setChecked(true);
    m_startProblem->clear();
  });
  return m_startBox;
}

void NewProjectWizard::setStartNetwork(const QString& name) {
  m_network->setCurrentText(name);
  m_networkChosen = true;
  m_start->button(StartNetwork)->click();
}

void NewProjectWizard::setStartCheckpoint(const QString& path) {
  m_startFile->setText(path);
  m_start->button(StartCheckpoint)->click();
}

NewProjectWizard::StartFrom NewProjectWizard::startFrom() const {
  return static_cast<StartFrom>(m_start->checkedId());
}

QString NewProjectWizard::startFromSetting() const {
  if (source() == UltralyticsArgs) return {};
  return startFrom() == StartCheckpoint ? m_startFile->text().trimmed() : m_network->currentText();
}

QString NewProjectWizard::startProblem() const {
  return m_startProblem->text();
}

QLineEdit* NewProjectWizard::field(const QString& name) const {
  if (name == QLatin1String("name")) return m_name;
  if (name == QLatin1String("folder")) return m_folder;
  if (name == QLatin1String("path")) return m_path;
  if (name == QLatin1String("classes")) return m_classes;
  return nullptr;
}

void NewProjectWizard::setSource(Source s) {
  m_source->button(s)->click();
}

NewProjectWizard::Source NewProjectWizard::source() const {
  return static_cast<Source>(m_source->checkedId());
}

QString NewProjectWizard::checkText() const {
  return m_check->toPlainText();
}

int NewProjectWizard::nextId() const {
  switch (currentId()) {
    case NamePage:
      return DatasetPage;
    case DatasetPage:
      return source() == ImagesFolder ? ClassesPage : CheckPage;
    case ClassesPage:
      return CheckPage;
    default:
      return -1;
  }
}

void NewProjectWizard::inspectFolder() {
  auto* page = static_cast<CheckedPage*>(this->page(ClassesPage));
  m_folderInfo->setText(tr("Looking at %1…").arg(m_path->text()));
  m_classesProblem->clear();
  const QString dir = m_path->text().trimmed();
  m_job->run<studio::ImagesFolder>(
      [dir] { return studio::inspectImagesFolder(dir); },
      [this, page](studio::ImagesFolder found) {
        m_images = found;
        m_inspected = true;
        if (!found.problem.isEmpty()) {
          m_folderInfo->clear();
          m_classesProblem->setText(found.problem);
        } else {
          m_folderInfo->setText(
              tr("%1 images, %2 with labels; class ids up to %3. data.yaml "
                 "goes to %4 (train: %5, val: %6).")
                  .arg(found.imageCount)
                  .arg(found.labelCount)
                  .arg(found.maxClassId)
                  .arg(QDir::toNativeSeparators(found.root), found.train, found.val));
          if (m_classes->text().isEmpty()) {
            QStringList names;
            for (int i = 0; i <= std::max(0, found.maxClassId); ++i)
              names << QStringLiteral("class%1").arg(i);
            m_classes->setText(names.join(QStringLiteral(", ")));
          }
        }
        page->changed();
      },
      [this, page](const QString& message) {
        m_classesProblem->setText(message);
        page->changed();
      });
}

bool NewProjectWizard::validateCurrentPage() {
  const QString path = m_path->text().trimmed();
  switch (currentId()) {
    case DatasetPage:
      if (source() == DataYaml) {
        if (!QFileInfo(path).isFile()) {
          m_datasetProblem->setText(tr("%1 is not a file (expected a data.yaml)").arg(path));
          return false;
        }
        m_dataYaml = QFileInfo(path).absoluteFilePath();
      } else if (source() == ImagesFolder) {
        if (!QFileInfo(path).isDir()) {
          m_datasetProblem->setText(tr("%1 is not a folder").arg(path));
          return false;
        }
      } else {
        auto data = studio::datasetOfUltralyticsArgs(path);
        if (!data) {
          m_datasetProblem->setText(studio::errorsText(data.errors()));
          return false;
        }
        m_dataYaml = QString::fromStdString(data.value());
      }
      return true;
    case ClassesPage: {
      QStringList names;
      for (const QString& n : m_classes->text().split(QLatin1Char(','))) names << n.trimmed();
      if (names.size() == 1 && names.first().isEmpty()) names.clear();
      auto written = studio::writeDataYaml(m_images, names);
      if (!written) {
        m_classesProblem->setText(studio::errorsText(written.errors()));
        return false;
      }
      m_dataYaml = QString::fromStdString(written.value());
      return true;
    }
    case CheckPage: {
      studio::NewProjectRequest r;
      r.folder = m_folder->text().trimmed();
      r.name = m_name->text().trimmed();
      r.dataYaml = m_dataYaml;
      if (source() == UltralyticsArgs) r.ultralyticsArgs = path;
      r.settings = proposedSettings();
      if (source() != UltralyticsArgs && startFrom() == StartCheckpoint) {
        const QString problem = studio::startCheckpointProblem(m_startFile->text());
        if (!problem.isEmpty()) {
          m_startProblem->setText(problem);
          return false;
        }
      }
      r.startFrom = startFromSetting();
      auto created = studio::createNewProject(r);
      if (!created) {
        m_verdict->setText(
            tr("Cannot create the project: %1").arg(studio::errorsText(created.errors())));
        return false;
      }
      m_created = QString::fromStdString(created.value());
      return true;
    }
    default:
      return true;
  }
}

QStringList NewProjectWizard::proposedSettings() const {
  if (!m_useProposal->isChecked() || source() == UltralyticsArgs) return {};
  return studio::proposalOverrides(m_proposals);
}

void NewProjectWizard::showProposals(const studio::MachineShape& machine,
                                     const studio::DatasetCheckResult& check) {
  studio::DatasetShape data;
  data.trainImages = check.trainImages;
  data.imageSide = check.imageSide;
  m_proposals = studio::proposeSettings(machine, data);
  QString text = machine.gpus > 0
                     ? tr("<b>Suggested for this machine (%n GPU(s)) and %1 training images:</b>",
                          nullptr, machine.gpus)
                           .arg(check.trainImages)
                     : tr("<b>Suggested for this machine (no GPU: training on the CPU) and %1 "
                          "training images:</b>")
                           .arg(check.trainImages);
  text += QStringLiteral("<table>");
  for (const auto& p : m_proposals) {
    if (p.key == QLatin1String("model")) {
      // Shown under Start from, where it can be changed.
      if (!m_networkChosen) m_network->setCurrentText(p.value);
      m_networkWhy->setText(tr("%1 is suggested: %2").arg(p.value, p.why));
      continue;
    }
    text += QStringLiteral("<tr><td><code>%1=%2</code>&nbsp;&nbsp;</td><td>%3</td></tr>")
                .arg(p.key.toHtmlEscaped(), p.value.toHtmlEscaped(), p.why.toHtmlEscaped());
  }
  text += QStringLiteral("</table>");
  m_proposal->setText(text);
  m_useProposal->show();
}

void NewProjectWizard::startCheck() {
  auto* page = static_cast<CheckedPage*>(this->page(CheckPage));
  m_checkDone = false;
  m_busy->show();
  m_check->setPlainText(tr("Checking %1…").arg(m_dataYaml));
  m_verdict->clear();
  m_proposal->clear();
  m_useProposal->hide();
  m_proposals.clear();
  m_startBox->setVisible(source() != UltralyticsArgs);  // the args.yaml's model is kept
  m_startProblem->clear();
  page->changed();
  const QString yaml = m_dataYaml;
  const bool probe = !m_machineSet;
  const studio::MachineShape given = m_machine;
  using Checked = std::pair<studio::DatasetCheckResult, studio::MachineShape>;
  m_job->run<Checked>(
      [yaml, probe, given] {
        return Checked{studio::checkDatasetFile(yaml), probe ? studio::probeMachine() : given};
      },
      [this, page](Checked checked) {
        const studio::DatasetCheckResult& r = checked.first;
        m_busy->hide();
        m_checkDone = true;
        m_checkCode = r.exitCode;
        m_check->setPlainText(r.summary);
        if (r.exitCode < 2 && source() != UltralyticsArgs) showProposals(checked.second, r);
        if (r.exitCode == 0)
          m_verdict->setText(tr("No problems found. Finish creates the project."));
        else if (r.exitCode == 1)
          m_verdict->setText(
              tr("Problems were found (listed above). The dataset is usable: "
                 "bad rows and images are left out of training."));
        else
          m_verdict->setText(
              tr("This dataset cannot be used as it is: fix what is listed above, "
                 "or go Back and choose another."));
        m_verdict->setStyleSheet(r.exitCode == 2 ? QStringLiteral("color: #b00020") : QString());
        page->changed();
      },
      [this, page](const QString& message) {
        m_busy->hide();
        m_checkDone = true;
        m_checkCode = 2;
        m_check->setPlainText(message);
        page->changed();
      });
}

}  // namespace stave::widgets
