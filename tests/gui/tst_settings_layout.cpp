// Settings on a 1024×640 screen (issue 43 §5.10): Settings ▸ Clusters was cramped, its fields'
// placeholders cut ("the project's runs/ (on shar…"). As the dialog opens and at the smallest
// it can be made, in English and Chinese, it fits the screen and every label, button, field's
// placeholder and spin box text of both tabs is drawn whole.
#include <QAbstractButton>
#include <QApplication>
#include <QFontMetrics>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QScreen>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionFrame>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTranslator>
#include <QtTest>

#include "common/offscreen_screen.h"
#include "widgets/cluster_profiles_editor.h"
#include "widgets/settings_dialog.h"

namespace {

/// The pixels `edit` has for its text: its contents less QLineEdit's margin of 2 on each side.
int textRoom(const QLineEdit* edit) {
  QStyleOptionFrame option;
  option.initFrom(edit);
  option.rect = edit->rect();
  option.lineWidth = edit->hasFrame() ? edit->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, &option, edit) : 0;
  option.state |= QStyle::State_Sunken;
  QRect r = edit->style()->subElementRect(QStyle::SE_LineEditContents, &option, edit);
  r = r.marginsRemoved(edit->textMargins());
  return r.width() - 2 * 2;
}

/// What of `page`'s shown labels, buttons and fields is not drawn whole.
QStringList cutTexts(QWidget* page) {
  QStringList cut;
  for (auto* w : page->findChildren<QWidget*>()) {
    if (!w->isVisibleTo(page)) continue;
    const QString name = w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className()) : w->objectName();
    if (auto* label = qobject_cast<QLabel*>(w)) {
      if (label->text().isEmpty()) continue;
      const bool whole = label->wordWrap() ? label->heightForWidth(label->width()) <= label->height()
                                           : label->sizeHint().width() <= label->width() &&
                                                 label->sizeHint().height() <= label->height();
      if (!whole)
        cut << QStringLiteral("label '%1' is %2x%3").arg(label->text()).arg(label->width()).arg(label->height());
    } else if (auto* button = qobject_cast<QAbstractButton*>(w)) {
      if (button->sizeHint().width() > button->width())
        cut << QStringLiteral("button '%1' needs %2 px, has %3").arg(button->text()).arg(button->sizeHint().width()).arg(button->width());
    } else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
      // A spin box's text is its line edit's; a field's placeholder shows while it is empty.
      for (const QString& text : {edit->placeholderText(), edit->text()}) {
        if (text.isEmpty() || (text == edit->text() && !qobject_cast<QAbstractSpinBox*>(edit->parentWidget())))
          continue;
        const int need = edit->fontMetrics().horizontalAdvance(text);
        if (need > textRoom(edit))
          cut << QStringLiteral("%1: '%2' needs %3 px, has %4").arg(name, text).arg(need).arg(textRoom(edit));
      }
    }
  }
  return cut;
}

}  // namespace

class TestSettingsLayout : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void clustersWhole_data() {
    QTest::addColumn<QString>("language");
    QTest::addColumn<bool>("smallest");
    for (const QString language : {"en", "zh_CN"}) {
      QTest::addRow("%s as opened", qPrintable(language)) << language << false;
      QTest::addRow("%s smallest", qPrintable(language)) << language << true;
    }
  }

  void clustersWhole() {
    QFETCH(QString, language);
    QFETCH(bool, smallest);
    QTranslator translator;
    if (language != QLatin1String("en")) {
      QVERIFY(translator.load(QLocale(language), QStringLiteral("stave"), QStringLiteral("_"), QStringLiteral(":/i18n")));
      QCoreApplication::installTranslator(&translator);
    }
    const auto untranslate = qScopeGuard([&] { QCoreApplication::removeTranslator(&translator); });
    QSettings().clear();
    stave::widgets::SettingsDialog dialog;
    auto* tabs = dialog.findChild<QTabWidget*>(QStringLiteral("settingsTabs"));
    auto* clusters = dialog.findChild<stave::widgets::ClusterProfilesEditor*>();
    QVERIFY(tabs && clusters);
    tabs->setCurrentWidget(clusters);
    clusters->addProfile();  // its fields enabled, their placeholders shown
    for (auto* edit : clusters->findChildren<QLineEdit*>())
      if (!edit->placeholderText().isEmpty() && edit->objectName() != QLatin1String("clusterName")) edit->clear();
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const QRect screen = dialog.screen()->availableGeometry();
    QVERIFY2(screen.width() >= 1024 && screen.height() >= 600,
             qPrintable(QStringLiteral("%1x%2").arg(screen.width()).arg(screen.height())));
    // It fits the screen as it opens, and can be made smaller still.
    QVERIFY2(dialog.width() <= 1024 && dialog.height() <= 600,
             qPrintable(QStringLiteral("%1x%2").arg(dialog.width()).arg(dialog.height())));
    if (smallest) {
      dialog.resize(dialog.minimumSize());
      QTRY_COMPARE(dialog.size(), dialog.minimumSize());
    }
    QStringList cut;
    for (int tab = 0; tab < tabs->count(); ++tab) {
      tabs->setCurrentIndex(tab);
      QTRY_VERIFY2((cut = cutTexts(tabs->currentWidget())).isEmpty(), qPrintable(cut.join(QLatin1String("; "))));
    }
    // The list of profiles shows the new one whole.
    auto* list = clusters->list();
    QVERIFY(list->visualItemRect(list->item(0)).width() >= list->fontMetrics().horizontalAdvance(list->item(0)->text()));
  }
};

int main(int argc, char** argv) {
  QTemporaryDir screen;
  if (!stave::testing::useOffscreenScreen(screen, QSize(1024, 640))) return 1;
  QApplication app(argc, argv);
  TestSettingsLayout test;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&test, argc, argv);
}

#include "tst_settings_layout.moc"
