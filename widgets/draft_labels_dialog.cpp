#include "widgets/draft_labels_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/studio/background_job.h"
#include "widgets/checkpoint_field.h"

namespace stave::widgets {

DraftLabelsDialog::DraftLabelsDialog(studio::ProjectDocument* doc,
                                     const QVector<studio::ImageAndLabel>& candidates,
                                     QWidget* parent)
    : QDialog(parent),
      m_job(new studio::BackgroundJob(this)),
      m_checkpoint(new CheckpointField(doc, this)),
      m_conf(new QDoubleSpinBox(this)) {
  setObjectName(QStringLiteral("draftLabelsDialog"));
  setWindowTitle(tr("Label new images"));
  auto* layout = new QVBoxLayout(this);
  m_summary = new QLabel(tr("Looking for images without a label file…"), this);
  m_summary->setObjectName(QStringLiteral("draftLabelsSummary"));
  m_summary->setWordWrap(true);
  layout->addWidget(m_summary);
  auto* form = new QFormLayout;
  m_checkpoint->setToolTip(
      tr("Its predictions are offered as draft labels. Empty: no drafts, "
         "draw the labels yourself."));
  form->addRow(tr("Model:"), m_checkpoint);
  m_conf->setRange(0.01, 0.99);
  m_conf->setSingleStep(0.05);
  m_conf->setDecimals(2);
  m_conf->setValue(studio::DraftPredictor::kDefaultConf);
  form->addRow(tr("Lowest confidence of a draft:"), m_conf);
  layout->addLayout(form);
  auto* note = new QLabel(tr("Drafts are drawn hatched in the label editor. Nothing is written "
                             "until you accept a draft (A), all of an image's drafts (Shift+A), "
                             "or draw and correct boxes yourself."),
                          this);
  note->setWordWrap(true);
  layout->addWidget(note);
  m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Open in the label editor"));
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
  layout->addWidget(m_buttons);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  resize(640, sizeHint().height());

  // Whether a label file exists is one stat per image: a million of them is file work for a
  // thread. Images with label boxes have one; only the others are asked.
  const std::atomic<bool>* stop = m_job->stopFlag();
  m_job->run<QVector<studio::ImageAndLabel>>(
      [candidates, stop] { return studio::imagesWithoutLabelFile(candidates, stop); },
      [this](QVector<studio::ImageAndLabel> images) {
        m_images = std::move(images);
        m_searched = true;
        m_summary->setText(
            m_images.isEmpty()
                ? tr("Every image of the dataset has a label file: there are no new images.")
                : tr("%n image(s) of the dataset have no label file (new images).", nullptr,
                     int(m_images.size())));
        m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!m_images.isEmpty());
        emit found();
      },
      [this](const QString& why) {
        m_searched = true;
        m_summary->setText(tr("Cannot look for new images: %1").arg(why));
        emit found();
      });
}

QString DraftLabelsDialog::weights() const {
  return m_checkpoint->path();
}

double DraftLabelsDialog::conf() const {
  return m_conf->value();
}

}  // namespace stave::widgets
