// stave: the studio. Opens the project given on the command line, if any.
#include <QApplication>
#include <QCommandLineParser>
#include <QLocale>
#include <QTranslator>

#include "widgets/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Stave"));
  QApplication::setOrganizationName(QStringLiteral("Stave"));
  QApplication::setApplicationVersion(QStringLiteral(STAVE_VERSION));

  QTranslator translator;
  if (translator.load(QLocale(), QStringLiteral("stave"), QStringLiteral("_"),
                      QStringLiteral(":/i18n")))
    QApplication::installTranslator(&translator);

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Stave studio: train YOLO detectors fast."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("A .stave project file to open."));
  parser.process(app);

  stave::widgets::MainWindow window;
  if (!parser.positionalArguments().isEmpty()) window.openProject(parser.positionalArguments().first());
  window.show();
  return app.exec();
}
