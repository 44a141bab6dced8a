// stave: the studio. Opens the project given on the command line, if any.
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QLocale>
#include <QTranslator>

#include "widgets/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Stave"));
  QApplication::setOrganizationName(QStringLiteral("Stave"));
  QApplication::setApplicationVersion(QStringLiteral(STAVE_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Stave studio: train YOLO detectors fast."));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption langOption(QStringLiteral("lang"),
                                QStringLiteral("User interface language, e.g. en or zh_CN "
                                               "(default: the system's)."),
                                QStringLiteral("code"));
  parser.addOption(langOption);
  parser.addPositionalArgument(QStringLiteral("project"),
                               QStringLiteral("A .stave project file to open."));
  parser.process(app);

  // English is built in; other languages come from the translations compiled into the binary.
  QTranslator translator;
  const QLocale locale =
      parser.isSet(langOption) ? QLocale(parser.value(langOption)) : QLocale::system();
  if (locale.language() != QLocale::English &&
      translator.load(locale, QStringLiteral("stave"), QStringLiteral("_"),
                      QStringLiteral(":/i18n")))
    QApplication::installTranslator(&translator);

  stave::widgets::MainWindow window;
  if (!parser.positionalArguments().isEmpty())
    window.openProject(parser.positionalArguments().first());
  window.show();
  return app.exec();
}
