#include "widgets/model_export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/studio/run/model_export_job.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/weights_fetch.h"
#include "widgets/checkpoint_field.h"

namespace stave::widgets {

ModelExportDialog::ModelExportDialog(studio::ProjectDocument* doc, QWidget* parent)
    : QDialog(parent), m_doc(doc), m_job(new studio::ModelExportJob(this)) {
  setWindowTitle(tr("Export Model"));
  setObjectName(QStringLiteral("modelExportDialog"));
  auto* layout = new QVBoxLayout(this);
  buildSourceForm(layout);
  buildOnnxGroup(layout);
  QPushButton* browseOut = buildOutputForm(layout);

  m_result = new QLabel(this);
  m_result->setObjectName(QStringLiteral("exportResult"));
  m_result->setWordWrap(true);
  m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_result->setMinimumHeight(m_result->fontMetrics().height() * 7);
  setMinimumWidth(720);
  m_result->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  layout->addWidget(m_result, 1);

  auto* buttons = new QDialogButtonBox(this);
  m_export = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
  m_export->setDefault(true);
  m_cancel = buttons->addButton(tr("Stop"), QDialogButtonBox::ActionRole);
  m_cancel->setEnabled(false);
  buttons->addButton(QDialogButtonBox::Close);
  layout->addWidget(buttons);

  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_export, &QPushButton::clicked, this, [this] { exportModel(); });
  connect(m_cancel, &QPushButton::clicked, m_job, &studio::ModelExportJob::cancel);
  connect(m_cancel, &QPushButton::clicked, m_field->fetchJob(), &studio::WeightsFetch::cancel);
  connect(m_field->fetchJob(), &studio::WeightsFetch::progress, this,
          [this] { m_result->setText(m_field->fetchJob()->progressText()); });
  connect(m_job, &studio::ModelExportJob::finished, this, &ModelExportDialog::finished);
  connect(m_format, &QComboBox::currentIndexChanged, this, &ModelExportDialog::formatChanged);
  connect(m_weights, &QComboBox::currentTextChanged, this, &ModelExportDialog::formatChanged);
  connect(m_dynamic, &QCheckBox::toggled, m_batch, &QWidget::setDisabled);
  connect(browseOut, &QPushButton::clicked, this, [this] {
    const bool onnx = m_format->currentData().toString() == QLatin1String("onnx");
    const QString p = QFileDialog::getSaveFileName(
        this, tr("Export Model"), m_out->text(),
        onnx ? tr("ONNX models (*.onnx)") : tr("Checkpoints (*.pt)"), nullptr,
        QFileDialog::DontConfirmOverwrite);  // the Replace box says whether to
    if (!p.isEmpty()) m_out->setText(p);
  });
  formatChanged();
}

void ModelExportDialog::buildSourceForm(QVBoxLayout* layout) {
  auto* form = new QFormLayout;

  auto* checkpoint = new CheckpointField(m_doc, this);
  m_field = checkpoint;
  m_weights = checkpoint->box();
  m_weights->setObjectName(QStringLiteral("exportWeights"));
  m_weights->setMinimumWidth(420);
  form->addRow(tr("Checkpoint:"), checkpoint);

  m_format = new QComboBox(this);
  m_format->setObjectName(QStringLiteral("exportFormat"));
  m_format->addItem(tr("ONNX (ONNX Runtime, TensorRT, OpenVINO)"), QStringLiteral("onnx"));
  m_format->addItem(tr("Ultralytics checkpoint (.pt, YOLO() loads it)"),
                    QStringLiteral("ultralytics"));
  m_format->addItem(tr("Stave checkpoint without optimiser state (.pt)"), QStringLiteral("stave"));
  form->addRow(tr("Format:"), m_format);
  layout->addLayout(form);
}

void ModelExportDialog::buildOnnxGroup(QVBoxLayout* layout) {
  m_onnx = new QGroupBox(tr("ONNX settings"), this);
  m_onnx->setObjectName(QStringLiteral("exportOnnx"));
  auto* onnxForm = new QFormLayout(m_onnx);
  m_imgsz = new QSpinBox(m_onnx);
  m_imgsz->setObjectName(QStringLiteral("exportImgsz"));
  m_imgsz->setRange(0, 8192);
  m_imgsz->setSingleStep(32);
  m_imgsz->setSpecialValueText(tr("the training size"));
  m_imgsz->setToolTip(tr("Input width and height in pixels, a multiple of 32"));
  m_imgsz->setMinimumWidth(m_imgsz->fontMetrics().horizontalAdvance(m_imgsz->specialValueText()) +
                           48);
  auto* imgszRow = new QHBoxLayout;
  imgszRow->addWidget(m_imgsz);
  imgszRow->addStretch(1);
  onnxForm->addRow(tr("Image size:"), imgszRow);
  auto* batchRow = new QHBoxLayout;
  m_batch = new QSpinBox(m_onnx);
  m_batch->setObjectName(QStringLiteral("exportBatch"));
  m_batch->setRange(1, 1024);
  m_dynamic = new QCheckBox(tr("Dynamic: any batch and image size"), m_onnx);
  m_dynamic->setObjectName(QStringLiteral("exportDynamic"));
  batchRow->addWidget(m_batch);
  batchRow->addWidget(m_dynamic);
  batchRow->addStretch(1);
  onnxForm->addRow(tr("Batch:"), batchRow);
  m_opset = new QSpinBox(m_onnx);
  m_opset->setObjectName(QStringLiteral("exportOpset"));
  m_opset->setRange(13, 17);
  m_opset->setValue(17);
  m_opset->setToolTip(tr("The ONNX operator set; older runtimes may need a lower one"));
  auto* opsetRow = new QHBoxLayout;
  opsetRow->addWidget(m_opset);
  opsetRow->addStretch(1);
  onnxForm->addRow(tr("Opset:"), opsetRow);
  m_half = new QCheckBox(tr("Float16 (checked on a GPU before it is written)"), m_onnx);
  m_half->setObjectName(QStringLiteral("exportHalf"));
  onnxForm->addRow(tr("Precision:"), m_half);
  layout->addWidget(m_onnx);
}

QPushButton* ModelExportDialog::buildOutputForm(QVBoxLayout* layout) {
  auto* outForm = new QFormLayout;
  auto* outRow = new QHBoxLayout;
  m_out = new QLineEdit(this);
  m_out->setObjectName(QStringLiteral("exportOut"));
  outRow->addWidget(m_out, 1);
  auto* browseOut = new QPushButton(tr("Save As…"), this);
  outRow->addWidget(browseOut);
  outForm->addRow(tr("Output file:"), outRow);
  m_replace = new QCheckBox(tr("Replace the file if it exists"), this);
  m_replace->setObjectName(QStringLiteral("exportReplace"));
  outForm->addRow(QString(), m_replace);
  layout->addLayout(outForm);
  return browseOut;
}

void ModelExportDialog::setNoGpu(const QString& reason) {
  m_half->setChecked(false);
  m_half->setEnabled(false);
  m_half->setText(tr("Float16 (needs a GPU to be checked on; this machine has none)"));
  m_half->setToolTip(tr("A float16 model is checked against float32 on a GPU before it is written, and "
                        "this machine has no GPU (%1). Export float32 here, or float16 on a machine "
                        "with a GPU.")
                         .arg(reason.isEmpty() ? tr("none found") : reason));
}

studio::ModelExportOptions ModelExportDialog::options() const {
  studio::ModelExportOptions o;
  o.format = m_format->currentData().toString();
  o.imgsz = m_imgsz->value();
  o.batch = m_batch->value();
  o.dynamic = m_dynamic->isChecked();
  o.opset = m_opset->value();
  o.half = m_half->isChecked();
  o.force = m_replace->isChecked();
  return o;
}

void ModelExportDialog::formatChanged() {
  m_onnx->setVisible(m_format->currentData().toString() == QLatin1String("onnx"));
  // The output follows the checkpoint and format until the user types another.
  const QString weights = m_weights->currentText().trimmed();
  const QString next = weights.isEmpty() ? QString()
                                         : studio::ModelExportJob::defaultOutput(
                                               weights, m_format->currentData().toString());
  if (m_out->text().isEmpty() || m_out->text() == m_autoOut) m_out->setText(next);
  m_autoOut = next;
  adjustSize();
}

bool ModelExportDialog::exportModel() {
  const QString weights = m_weights->currentText().trimmed();
  const QString out = m_out->text().trimmed();
  QString error;
  // A run behind SSH: its checkpoint comes from the cluster first, then the export starts.
  if (!out.isEmpty() && m_field->fetchIfRemote([this](const QString& problem) {
        m_export->setEnabled(true);
        m_cancel->setEnabled(false);
        if (problem.isEmpty())
          exportModel();
        else
          m_result->setText(tr("Not exported; the checkpoint could not be fetched.\n%1").arg(problem));
      })) {
    m_result->setText(m_field->fetchJob()->progressText());
    m_export->setEnabled(false);
    m_cancel->setEnabled(true);
    return true;
  }
  if (!QFileInfo(weights).isFile())
    error = tr("Choose a checkpoint file (%1 is not one).").arg(weights);
  else if (out.isEmpty())
    error = tr("Choose the output file.");
  else if (m_imgsz->value() % 32 != 0)
    error = tr("The image size must be a multiple of 32 (the model's largest stride).");
  if (error.isEmpty() && !m_job->start(weights, out, options(), &error) && error.isEmpty())
    error = tr("The export could not start.");
  if (!error.isEmpty()) {
    m_result->setText(error);
    return false;
  }
  m_result->setText(tr("Exporting %1 …").arg(QDir::toNativeSeparators(weights)));
  m_export->setEnabled(false);
  m_cancel->setEnabled(true);
  return true;
}

void ModelExportDialog::finished() {
  m_export->setEnabled(true);
  m_cancel->setEnabled(false);
  using O = studio::ModelExportJob::Outcome;
  switch (m_job->outcome()) {
    case O::Completed:
      m_result->setText(
          tr("Written: %1\n%2").arg(QDir::toNativeSeparators(m_job->output()), m_job->summary()));
      adjustSize();
      break;
    case O::Stopped:
      m_result->setText(tr("Stopped; nothing was written."));
      break;
    default:
      // The job says stave-train's refusals in the dialog's words (the Replace box, not --force).
      m_result->setText(tr("Not exported; nothing was written.\n%1").arg(m_job->errorText()));
      adjustSize();
      break;
  }
}

}  // namespace stave::widgets
