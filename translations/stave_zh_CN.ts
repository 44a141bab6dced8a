<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>stave::widgets::MainWindow</name>
    <message><source>Stave</source><translation>Stave</translation></message>
    <message><source>Project</source><translation>项目</translation></message>
    <message><source>Dataset</source><translation>数据集</translation></message>
    <message><source>Train</source><translation>训练</translation></message>
    <message><source>Monitor</source><translation>监控</translation></message>
    <message><source>History</source><translation>历史</translation></message>
</context>
</TS>
