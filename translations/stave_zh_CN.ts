<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>stave::widgets::AugmentView</name>
    <message>
        <location filename="../widgets/augment_view.cpp" line="72"/>
        <location filename="../widgets/augment_view.cpp" line="104"/>
        <source>Show augmentation</source>
        <translation>显示数据增强</translation>
    </message>
    <message>
        <location filename="../widgets/augment_view.cpp" line="75"/>
        <source>Render one training batch with the active config&apos;s augmentation, as the trainer&apos;s loader does</source>
        <translation>按当前配置的数据增强渲染一个训练批次，与训练器的加载器相同</translation>
    </message>
    <message>
        <location filename="../widgets/augment_view.cpp" line="87"/>
        <source>See what the network is trained on: a batch from the real data loader with mosaic, HSV, flips, scale and rotation as the active config sets them.</source>
        <translation>看看网络实际用什么训练：来自真实数据加载器的一个批次，马赛克、HSV、翻转、缩放和旋转均按当前配置设置。</translation>
    </message>
    <message>
        <location filename="../widgets/augment_view.cpp" line="112"/>
        <source>The train split has no usable images: nothing to augment.</source>
        <translation>训练划分中没有可用图像：无可增强的内容。</translation>
    </message>
    <message>
        <location filename="../widgets/augment_view.cpp" line="119"/>
        <source>The active config cannot be used: %1</source>
        <translation>当前配置无法使用：%1</translation>
    </message>
    <message>
        <location filename="../widgets/augment_view.cpp" line="126"/>
        <source>Building a batch…</source>
        <translation>正在生成批次…</translation>
    </message>
    <message>
        <location filename="../widgets/augment_view.cpp" line="132"/>
        <source>Another batch</source>
        <translation>换一个批次</translation>
    </message>
    <message>
        <location filename="../widgets/augment_view.cpp" line="135"/>
        <location filename="../widgets/augment_view.cpp" line="162"/>
        <source>No batch: %1</source>
        <translation>没有批次：%1</translation>
    </message>
    <message>
        <location filename="../widgets/augment_view.cpp" line="138"/>
        <source>Config &apos;%1&apos;: imgsz %2, mosaic %3, mixup %4, HSV %5/%6/%7, fliplr %8, flipud %9, scale %10, degrees %11, translate %12 — epoch %13, batch %14: %15 images, %16 boxes</source>
        <translation>配置“%1”：imgsz %2，mosaic %3，mixup %4，HSV %5/%6/%7，fliplr %8，flipud %9，scale %10，degrees %11，translate %12 — 第 %13 轮，第 %14 批：%15 张图像，%16 个框</translation>
    </message>
</context>
<context>
    <name>stave::widgets::CheckpointField</name>
    <message>
        <location filename="../widgets/checkpoint_field.cpp" line="60"/>
        <source>On the cluster: fetched into the run&apos;s folder when used</source>
        <translation>在集群上：使用时取回到该运行的文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/checkpoint_field.cpp" line="31"/>
        <source>a run&apos;s weights/best.pt or last.pt</source>
        <translation>某次运行的 weights/best.pt 或 last.pt</translation>
    </message>
    <message>
        <location filename="../widgets/checkpoint_field.cpp" line="40"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../widgets/checkpoint_field.cpp" line="43"/>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <location filename="../widgets/checkpoint_field.cpp" line="44"/>
        <source>Checkpoints (*.pt);;All files (*)</source>
        <translation>检查点 (*.pt);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>stave::studio::ChildProcess</name>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="138"/>
        <source>the process is not running</source>
        <translation>该进程未在运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="105"/>
        <location filename="../core/studio/run/run_controller.cpp" line="259"/>
        <source>the run is not running</source>
        <translation>该运行未在运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="107"/>
        <source>cannot signal process %1: %2</source>
        <translation>无法向进程 %1 发送信号：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="203"/>
        <source>stave-train was not found (looked beside the studio and on PATH)</source>
        <translation>未找到 stave-train（已在工作室旁和 PATH 中查找）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="204"/>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="221"/>
        <source>cannot start setsid/sh for %1</source>
        <translation>无法为 %1 启动 setsid/sh</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="236"/>
        <source>the run did not start within %1 s (see %2)</source>
        <translation>运行未在 %1 秒内启动（见 %2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="364"/>
        <source>%1 cannot be started (%2)</source>
        <translation>无法启动 %1（%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="392"/>
        <source>%1 was not waited for</source>
        <translation>未等待 %1 结束</translation>
    </message>
    <message>
        <location filename="../core/studio/run/child_process.cpp" line="393"/>
        <source>%1 gave no answer in %2 s</source>
        <translation>%1 在 %2 秒内没有应答</translation>
    </message>
</context>
<context>
    <name>stave::studio::ClusterJob</name>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="103"/>
        <source>sbatch&apos;s answer was lost, and Slurm lists no job named %1 for this run yet; it is looked for again at every poll (squeue --name=%1 on the cluster)</source>
        <translation>sbatch 的回复丢失了，Slurm 目前还没有列出本运行名为 %1 的作业；每次轮询都会再查找一次（在集群上运行 squeue --name=%1）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="336"/>
        <source>this run&apos;s Slurm job is not known yet</source>
        <translation>尚不知道此运行的 Slurm 作业</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="341"/>
        <source>this run&apos;s last submission is not known to Slurm yet (a job named %1 may still start)</source>
        <translation>此运行上次提交的作业 Slurm 尚不知晓（名为 %1 的作业可能仍会开始）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="344"/>
        <source>Slurm job %1 has not ended yet</source>
        <translation>Slurm 作业 %1 尚未结束</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="405"/>
        <source>no Slurm job to stop</source>
        <translation>没有可停止的 Slurm 作业</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="410"/>
        <source>this run&apos;s Slurm job is not known yet (sbatch gave no answer); look for the job named %1 with squeue</source>
        <translation>尚不知道此运行的 Slurm 作业（sbatch 没有回答）；请用 squeue 查找名为 %1 的作业</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="416"/>
        <source>Slurm job %1 has ended</source>
        <translation>Slurm 作业 %1 已结束</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="420"/>
        <source>Slurm is still being asked; try again in a moment</source>
        <translation>仍在询问 Slurm，请稍后再试</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="445"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="447"/>
        <source>pending</source>
        <translation>排队中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="449"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="451"/>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="453"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="455"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="463"/>
        <source>waiting for nodes with the requested CPUs, GPUs and memory to become free</source>
        <translation>正在等待具有所请求的 CPU、GPU 和内存的节点空闲</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="465"/>
        <source>jobs of higher priority are ahead of it in the queue</source>
        <translation>队列中有优先级更高的作业排在它前面</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="467"/>
        <source>the partition is down; an administrator must bring it up</source>
        <translation>分区已停用；需要管理员将其启用</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="469"/>
        <source>the request does not fit the partition (more CPUs, GPUs or memory per node than its nodes have, or a node count or time it does not allow): check the cluster profile in Settings ▸ Clusters, e.g. CPUs per rank</source>
        <translation>请求与分区不符（每个节点的 CPU、GPU 或内存多于其节点所有，或节点数、时间超出其允许）：请在 设置 ▸ 集群 中检查集群配置，例如每个进程的 CPU 数</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="474"/>
        <source>more nodes than the partition allows</source>
        <translation>节点数多于分区允许的数量</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="476"/>
        <source>the time limit is longer than the partition allows</source>
        <translation>时间限制长于分区允许的时长</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="478"/>
        <source>a node it needs is down, drained or reserved</source>
        <translation>它需要的节点已宕机、已排空或已预留</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="479"/>
        <source>waiting for a job it depends on</source>
        <translation>正在等待它所依赖的作业</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="480"/>
        <source>its start time has not come yet</source>
        <translation>尚未到它的开始时间</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="482"/>
        <source>held by its user (scontrol release releases it)</source>
        <translation>已被其用户挂起（scontrol release 可释放）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="483"/>
        <source>held by an administrator</source>
        <translation>已被管理员挂起</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="485"/>
        <source>the account or QOS is not valid for this user: check the cluster profile&apos;s account</source>
        <translation>该账户或 QOS 对此用户无效：请检查集群配置中的账户</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="487"/>
        <source>a limit of the account or QOS is reached; it starts when other jobs of the account end</source>
        <translation>已达到账户或 QOS 的限制；该账户的其他作业结束后它才会开始</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="490"/>
        <source>waiting for its reservation</source>
        <translation>正在等待它的预留</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="496"/>
        <source>Submitting to Slurm…</source>
        <translation>正在提交到 Slurm…</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="498"/>
        <source>Slurm job: reading its record…</source>
        <translation>Slurm 作业：正在读取其记录…</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="500"/>
        <source>Slurm job on %1: sbatch gave no answer; looking for the job named %2 (the run folder is kept)</source>
        <translation>%1 上的 Slurm 作业：sbatch 没有回答；正在查找名为 %2 的作业（运行文件夹已保留）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="510"/>
        <location filename="../core/studio/run/cluster_job.cpp" line="523"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="513"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="514"/>
        <source>%1: %2 — %3</source>
        <translation>%1：%2 — %3</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="517"/>
        <source>%1, exit code %2</source>
        <translation>%1，退出码 %2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="522"/>
        <location filename="../core/studio/run/cluster_job.cpp" line="523"/>
        <source>ending</source>
        <translation>正在结束</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="524"/>
        <source>Slurm job %1 on %2: %3</source>
        <translation>Slurm 作业 %1（%2）：%3</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="525"/>
        <source> — Slurm cannot be asked now: %1</source>
        <translation> — 暂时无法询问 Slurm：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/cluster_job.cpp" line="34"/>
        <source>the cluster profile &apos;%1&apos; of this run is not in Settings ▸ Clusters with a destination</source>
        <translation>此运行的集群配置“%1”不在 设置 ▸ 集群 中，或没有目标</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ClusterProfilesEditor</name>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="48"/>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="50"/>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="96"/>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="96"/>
        <source>shown in the Run page&apos;s list</source>
        <translation>显示在运行页面的列表中</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="97"/>
        <source>SSH destination:</source>
        <translation>SSH 目标：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="97"/>
        <source>none: Slurm on this machine</source>
        <translation>无：本机的 Slurm</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="98"/>
        <source>How to reach the cluster&apos;s login node: user@host, or a Host of ~/.ssh/config (jump hosts, agents and keys work as in a terminal). ssh never asks for a password: check that `ssh DESTINATION true` works without a prompt. Empty: the Slurm commands run on this machine.</source>
        <translation>如何连到集群的登录节点：user@host，或 ~/.ssh/config 中的一个 Host（跳板机、agent 和密钥与在终端中一样可用）。ssh 从不询问密码：请先确认 `ssh DESTINATION true` 无需提示即可运行。留空：Slurm 命令在本机运行。</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="102"/>
        <source>SSH port:</source>
        <translation>SSH 端口：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="102"/>
        <source>ssh&apos;s configuration</source>
        <translation>ssh 配置中的</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="103"/>
        <source>SSH config file:</source>
        <translation>SSH 配置文件：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="103"/>
        <source>~/.ssh/config</source>
        <translation>~/.ssh/config</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="104"/>
        <source>Another ssh configuration file (ssh -F); empty: your ~/.ssh/config</source>
        <translation>另一个 ssh 配置文件（ssh -F）；留空：您的 ~/.ssh/config</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="105"/>
        <source>Partition:</source>
        <translation>分区：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="105"/>
        <source>the cluster&apos;s default</source>
        <translation>集群默认值</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="106"/>
        <source>The Slurm partition (sbatch --partition); empty: the cluster&apos;s default</source>
        <translation>Slurm 分区（sbatch --partition）；留空：使用集群的默认分区</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="107"/>
        <source>Account:</source>
        <translation>账户：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="107"/>
        <source>your default account</source>
        <translation>您的默认账户</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="108"/>
        <source>The account the job is charged to (sbatch --account); empty: your default</source>
        <translation>作业计费的账户（sbatch --account）；留空：使用你的默认账户</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="109"/>
        <source>Time limit:</source>
        <translation>时间限制：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="109"/>
        <source>[D-]HH:MM:SS or minutes</source>
        <translation>[D-]HH:MM:SS 或分钟数</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="110"/>
        <source>The job&apos;s time limit (sbatch --time): [D-]HH:MM:SS, or minutes</source>
        <translation>作业的时间上限（sbatch --time）：[D-]HH:MM:SS，或分钟数</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="111"/>
        <source>the config&apos;s processes</source>
        <translation>配置的进程数</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="112"/>
        <source>GPUs (one rank each) per node; 0 = CPU ranks, no GPU request</source>
        <translation>每个节点的 GPU 数（每个 GPU 一个进程）；0 = CPU 进程，不申请 GPU</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="115"/>
        <source>the project&apos;s runs/</source>
        <translation>项目的 runs/</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="133"/>
        <source>The folder of sbatch, squeue, sacct, scontrol and scancel (on the cluster over SSH). Empty: found on PATH.</source>
        <translation>sbatch、squeue、sacct、scontrol 和 scancel 所在的文件夹（通过 SSH 时为集群上的）。留空：在 PATH 中查找。</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="135"/>
        <source>Without a destination, sbatch, squeue, sacct, scontrol and scancel run on this machine; with one, on the login node over ssh, and the run folder here mirrors the cluster&apos;s (checkpoints fetched on demand). Stop sends SIGTERM to the job&apos;s steps (scancel --signal=TERM): the run writes a checkpoint and can be resumed.</source>
        <translation>没有目标时，sbatch、squeue、sacct、scontrol 和 scancel 在本机运行；有目标时，通过 ssh 在登录节点上运行，本机的运行文件夹是集群上那个的镜像（检查点按需获取）。停止会向作业的步骤发送 SIGTERM（scancel --signal=TERM）：运行写入检查点，之后可以恢复。</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="129"/>
        <source>this studio&apos;s</source>
        <translation>本工作室自带的</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="132"/>
        <source>found on PATH</source>
        <translation>在 PATH 中查找</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="111"/>
        <source>GPUs per node:</source>
        <translation>每节点 GPU 数：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="113"/>
        <source>Nodes:</source>
        <translation>节点数：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="114"/>
        <source>the config&apos;s workers + 2</source>
        <translation>配置的 workers + 2</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="114"/>
        <source>CPUs per rank:</source>
        <translation>每个进程的 CPU 数：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="115"/>
        <source>Run folder:</source>
        <translation>运行文件夹：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="116"/>
        <source>A folder the cluster&apos;s nodes and this machine both see (NFS, Lustre…). Runs go to &lt;folder&gt;/&lt;project&gt;/&lt;run&gt;, linked from the project&apos;s runs/. Empty: the project&apos;s runs/, which must then be on shared storage. Over SSH: the folder on the cluster (required); the project&apos;s runs/ keeps a mirror.</source>
        <translation>集群节点和本机都能访问的文件夹（NFS、Lustre…）。运行放在 &lt;文件夹&gt;/&lt;项目&gt;/&lt;运行&gt;，并从项目的 runs/ 链接过去。留空：项目的 runs/，此时它必须位于共享存储上。通过 SSH 时：集群上的文件夹（必填）；项目的 runs/ 中保存一份镜像。</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="121"/>
        <source>Dataset folder here:</source>
        <translation>本机的数据集文件夹：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="121"/>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="124"/>
        <source>no mapping</source>
        <translation>不映射</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="122"/>
        <source>Over SSH: a folder of datasets as this machine sees it; the project&apos;s data.yaml under it is given to the job under the cluster&apos;s folder below.</source>
        <translation>通过 SSH 时：本机看到的数据集文件夹；项目位于其中的 data.yaml 会以下面集群上的文件夹交给作业。</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="124"/>
        <source>Same folder on the cluster:</source>
        <translation>集群上的同一文件夹：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="125"/>
        <source>Over SSH: that folder as the cluster&apos;s nodes see it.</source>
        <translation>通过 SSH 时：集群节点看到的该文件夹。</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="126"/>
        <source>Dataset on the cluster:</source>
        <translation>集群上的数据集：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="126"/>
        <source>mapped as above</source>
        <translation>按上面的映射</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="127"/>
        <source>Over SSH: the dataset&apos;s data.yaml when it is already on the cluster (wins over the mapping).</source>
        <translation>通过 SSH 时：数据集已在集群上时它的 data.yaml（优先于映射）。</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="129"/>
        <source>stave-train:</source>
        <translation>stave-train：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="130"/>
        <source>The stave-train the nodes start. Empty: this studio&apos;s own, which must be at the same path on the nodes; over SSH: found on PATH there.</source>
        <translation>节点启动的 stave-train。留空：本工作室自己的，它在节点上必须位于相同路径；通过 SSH 时：在集群的 PATH 中查找。</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="132"/>
        <source>Slurm commands in:</source>
        <translation>Slurm 命令位置：</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="183"/>
        <source>cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../widgets/cluster_profiles_editor.cpp" line="188"/>
        <source>cluster-%1</source>
        <translation>集群-%1</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ConfigForm</name>
    <message>
        <location filename="../widgets/config_form.cpp" line="37"/>
        <source>Choose a file…</source>
        <translation>选择文件…</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="166"/>
        <source>Config:</source>
        <translation>配置：</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="171"/>
        <source>Group:</source>
        <translation>分组：</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="174"/>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="184"/>
        <source>Filter parameters…</source>
        <translation>筛选参数…</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="187"/>
        <source>Changed only</source>
        <translation>仅显示已修改</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="222"/>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="223"/>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="277"/>
        <source>Checkpoints (*.pt);;All files (*)</source>
        <translation>检查点 (*.pt);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="278"/>
        <source>Dataset (*.yaml *.yml);;All files (*)</source>
        <translation>数据集 (*.yaml *.yml);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="279"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="290"/>
        <source>Start weights (%1)</source>
        <translation>起始权重（%1）</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="291"/>
        <source>File for %1</source>
        <translation>%1 的文件</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="325"/>
        <source>optimizer auto (SGD or AdamW by the run&apos;s length, chosen at the start)</source>
        <translation>优化器 auto（开始时按训练长度选择 SGD 或 AdamW）</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="327"/>
        <source>optimizer auto → %1, lr0 %2, momentum %3 (auto sets them: the lr0 and momentum above are not used)</source>
        <translation>优化器 auto → %1，lr0 %2，momentum %3（由 auto 设定：上面的 lr0 和 momentum 不会被使用）</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="336"/>
        <source>%1 lr0 %2</source>
        <translation>%1 lr0 %2</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="339"/>
        <source>optimizer=auto chooses %1 with its own learning rate and momentum for a run of %2 optimiser steps; set optimizer=SGD or AdamW to use the values typed here.</source>
        <translation>optimizer=auto 为 %2 个优化器步的运行选择了 %1，并使用它自己的学习率和动量；设置 optimizer=SGD 或 AdamW 才会使用此处填写的值。</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="343"/>
        <source>World size %1 · global batch %2 · accumulate %3 step(s) · effective batch %4 · %5 · weight decay %6</source>
        <translation>进程数 %1 · 全局批量 %2 · 梯度累积 %3 步 · 有效批量 %4 · %5 · 权重衰减 %6</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/config_form.cpp" line="354"/>
        <source>%n value(s) need fixing before Apply.</source>
        <translation>
            <numerusform>有 %n 个值需要修正后才能应用。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="357"/>
        <source>Unapplied changes.</source>
        <translation>有未应用的修改。</translation>
    </message>
</context>
<context>
    <name>stave::studio::ConfigFormModel</name>
    <message>
        <location filename="../core/studio/models/config_form_model.cpp" line="182"/>
        <source>(empty)</source>
        <translation>（空）</translation>
    </message>
    <message>
        <location filename="../core/studio/models/config_form_model.cpp" line="195"/>
        <source>%1 → %2 used</source>
        <translation>%1 → 实际使用 %2</translation>
    </message>
    <message>
        <location filename="../core/studio/models/config_form_model.cpp" line="209"/>
        <source>Every config trains on the project&apos;s dataset. Change it on the Project page (Change Dataset…).</source>
        <translation>每个配置都使用项目的数据集训练。可在项目页更改（更改数据集…）。</translation>
    </message>
    <message>
        <location filename="../core/studio/models/config_form_model.cpp" line="289"/>
        <source>Parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../core/studio/models/config_form_model.cpp" line="291"/>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../core/studio/models/config_form_model.cpp" line="291"/>
        <source>Value in %1</source>
        <translation>%1 中的值</translation>
    </message>
    <message>
        <location filename="../core/studio/models/config_form_model.cpp" line="293"/>
        <source>Default</source>
        <translation>默认值</translation>
    </message>
    <message>
        <location filename="../core/studio/models/config_form_model.cpp" line="295"/>
        <source>Description</source>
        <translation>说明</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ConfigValueDelegate</name>
    <message>
        <location filename="../widgets/config_form.cpp" line="79"/>
        <source>none: random weights, or those of a model=.pt</source>
        <translation>无：随机权重，或 model=.pt 的权重</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="100"/>
        <source>Checkpoint file (.pt)…</source>
        <translation>检查点文件 (.pt)…</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="102"/>
        <source>A checkpoint (Stave&apos;s or Ultralytics&apos;, e.g. yolo11n.pt) gives the network and its weights</source>
        <translation>检查点（Stave 或 Ultralytics 的，例如 yolo11n.pt）提供网络及其权重</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ConfusionMatrixView</name>
    <message>
        <location filename="../widgets/confusion_matrix_view.cpp" line="145"/>
        <source>No confusion matrix</source>
        <translation>没有混淆矩阵</translation>
    </message>
    <message>
        <location filename="../widgets/confusion_matrix_view.cpp" line="177"/>
        <source>True</source>
        <translation>真实</translation>
    </message>
    <message>
        <location filename="../widgets/confusion_matrix_view.cpp" line="182"/>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <location filename="../widgets/confusion_matrix_view.cpp" line="216"/>
        <source>Predicted %1, true %2: %3 (%4% of the true %2)</source>
        <translation>预测 %1，真实 %2：%3（占真实 %2 的 %4%）</translation>
    </message>
</context>
<context>
    <name>stave::widgets::DatasetGallery</name>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="52"/>
        <source>Split:</source>
        <translation>划分：</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="54"/>
        <source>Class:</source>
        <translation>类别：</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="56"/>
        <source>Problems:</source>
        <translation>问题：</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="60"/>
        <source>Edit labels…</source>
        <translation>编辑标注…</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="62"/>
        <source>Open the label editor on the images shown, from the selected one (or double-click an image)</source>
        <translation>在标注编辑器中打开当前显示的图像，从选中的那张开始（或双击一张图像）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="92"/>
        <location filename="../widgets/dataset_gallery.cpp" line="155"/>
        <location filename="../widgets/dataset_gallery.cpp" line="235"/>
        <source>Select an image to see it large.</source>
        <translation>选择一张图像以放大查看。</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="99"/>
        <source>Boxes shown for:</source>
        <translation>显示以下类别的框：</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="161"/>
        <source>All splits</source>
        <translation>所有划分</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="164"/>
        <source>All classes</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="168"/>
        <source>All images</source>
        <translation>所有图像</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="169"/>
        <source>With problems</source>
        <translation>有问题的</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="170"/>
        <source>Without problems</source>
        <translation>无问题的</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="179"/>
        <source>%1 (%2 boxes)</source>
        <translation>%1（%2 个框）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="205"/>
        <source>%1 of %2 images</source>
        <translation>%2 张图像中的 %1 张</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="244"/>
        <source>%1 split, %2 × %3 pixels, boxes: %4</source>
        <translation>%1 划分，%2 × %3 像素，框：%4</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="250"/>
        <source>%1 split, left out of training</source>
        <translation>%1 划分，不参与训练</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="253"/>
        <source>Problems: %1 (see the Problems tab)</source>
        <translation>问题：%1（见“问题”标签页）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="262"/>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_gallery.cpp" line="268"/>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
</context>
<context>
    <name>stave::widgets::DatasetPage</name>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="102"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="106"/>
        <source>Label new images…</source>
        <translation>标注新图片…</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="109"/>
        <source>Images without a label file, in the label editor with a model&apos;s predictions as draft labels</source>
        <translation>没有标注文件的图片：在标注编辑器中打开，以模型的预测作为草稿标注</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="113"/>
        <source>Rescan</source>
        <translation>重新扫描</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="130"/>
        <source>Split</source>
        <translation>划分</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="130"/>
        <source>Images</source>
        <translation>图像</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="130"/>
        <source>Labelled</source>
        <translation>有标注</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="130"/>
        <source>Background</source>
        <translation>背景</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="131"/>
        <source>Instances</source>
        <translation>实例</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="131"/>
        <location filename="../widgets/dataset_page.cpp" line="180"/>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="131"/>
        <source>Left out</source>
        <translation>已排除</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="136"/>
        <source>Instances per class</source>
        <translation>各类别实例数</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="136"/>
        <source>class</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="136"/>
        <source>instances</source>
        <translation>实例数</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="139"/>
        <source>Box width × height (of the image)</source>
        <translation>框的宽 × 高（相对图像）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="139"/>
        <source>width</source>
        <translation>宽</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="139"/>
        <source>height</source>
        <translation>高</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="142"/>
        <source>Box aspect (width : height)</source>
        <translation>框的宽高比（宽 : 高）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="142"/>
        <source>aspect</source>
        <translation>宽高比</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="142"/>
        <source>boxes</source>
        <translation>框数</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="145"/>
        <source>Image sizes</source>
        <translation>图像尺寸</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="145"/>
        <source>width (px)</source>
        <translation>宽（像素）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="145"/>
        <source>height (px)</source>
        <translation>高（像素）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="150"/>
        <source>Summary</source>
        <translation>概览</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="168"/>
        <location filename="../widgets/dataset_page.cpp" line="394"/>
        <source>Select a problem to see its image and label.</source>
        <translation>选择一个问题以查看其图像和标注。</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="81"/>
        <source>Gallery</source>
        <translation>图库</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="83"/>
        <source>Augmentation</source>
        <translation>数据增强</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="85"/>
        <source>Label issues</source>
        <translation>标注问题</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="200"/>
        <source>%1: %2 / %3 images</source>
        <translation>%1：%2 / %3 张图像</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="341"/>
        <source>Dataset: %1</source>
        <translation>数据集：%1</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="342"/>
        <source>Scanning…</source>
        <translation>正在扫描…</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="344"/>
        <source>listing images…</source>
        <translation>正在列出图像…</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="392"/>
        <source>No problems: every image and label file was read and passed the checks (readable, labels in range, no duplicates).</source>
        <translation>没有问题：每个图像和标注文件都已读取并通过检查（可读、标注在范围内、无重复）。</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="396"/>
        <source>Problems (%1)</source>
        <translation>问题（%1）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="417"/>
        <source>%1 classes, %2 images, %3 problems%4</source>
        <translation>%1 个类别，%2 张图像，%3 个问题%4</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="521"/>
        <source>No image belongs to this file.</source>
        <translation>没有图像对应此文件。</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="558"/>
        <source>Line %1 has no box to draw.</source>
        <translation>第 %1 行没有可绘制的框。</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="560"/>
        <source>Line %1&apos;s box lies outside the image.</source>
        <translation>第 %1 行的框在图像之外。</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="571"/>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="208"/>
        <source>Scan cancelled; Rescan to start again.</source>
        <translation>扫描已取消；点“重新扫描”再次开始。</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="367"/>
        <source>Cannot read the dataset: %1</source>
        <translation>无法读取数据集：%1</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="421"/>
        <source> (from the scan cache)</source>
        <translation>（来自扫描缓存）</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="426"/>
        <source>No image has a label: every image is background. Labels are read from a labels/ folder beside images/ (…/labels/a.txt for …/images/a.jpg).</source>
        <translation>没有任何图像有标注：所有图像都是背景。标注从 images/ 旁边的 labels/ 文件夹读取（…/images/a.jpg 对应 …/labels/a.txt）。</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="516"/>
        <source>%1: %2: %3</source>
        <translation>%1：%2：%3</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="577"/>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/dataset_page.cpp" line="546"/>
        <source>line %1: %2</source>
        <translation>第 %1 行：%2</translation>
    </message>
</context>
<context>
    <name>stave::studio::DemoProjectMaker</name>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="273"/>
        <source>stave-train was not found beside the studio or on PATH</source>
        <translation>在工作室旁边或 PATH 中找不到 stave-train</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="285"/>
        <source>creating the demo project</source>
        <translation>正在创建演示项目</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="291"/>
        <source>making the demo images</source>
        <translation>正在生成演示图像</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="301"/>
        <source>%1: cannot start %2</source>
        <translation>%1：无法启动 %2</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="307"/>
        <source>%1 failed: %2</source>
        <translation>%1 失败：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="307"/>
        <source>no output</source>
        <translation>无输出</translation>
    </message>
</context>
<context>
    <name>stave::widgets::DocsDialog</name>
    <message>
        <location filename="../widgets/help_dialogs.cpp" line="73"/>
        <source>Stave Documentation</source>
        <translation>Stave 文档</translation>
    </message>
</context>
<context>
    <name>stave::studio::DoctorAdvice</name>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="42"/>
        <source>An unreadable diagnosis event was skipped: %1</source>
        <translation>已跳过一个无法读取的诊断事件：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="84"/>
        <source>Open the run&apos;s project first.</source>
        <translation>请先打开该运行所属的项目。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="86"/>
        <source>There is no such finding.</source>
        <translation>没有这条诊断结果。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="88"/>
        <source>This finding advises no config change.</source>
        <translation>这条诊断结果没有建议修改配置。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="90"/>
        <source>The new config needs a name.</source>
        <translation>新配置需要一个名称。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="92"/>
        <source>There is already a config called %1</source>
        <translation>已存在名为 %1 的配置</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="97"/>
        <source>The advice does not fit the config: %1</source>
        <translation>该建议不符合配置要求：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="99"/>
        <source>The config with this advice is not valid: %1</source>
        <translation>应用此建议后的配置无效：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="107"/>
        <source>info</source>
        <translation>提示</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="109"/>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_advice.cpp" line="111"/>
        <source>critical</source>
        <translation>严重</translation>
    </message>
</context>
<context>
    <name>stave::widgets::DraftLabelsDialog</name>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="24"/>
        <source>Label new images</source>
        <translation>标注新图片</translation>
    </message>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="26"/>
        <source>Looking for images without a label file…</source>
        <translation>正在查找没有标注文件的图片…</translation>
    </message>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="32"/>
        <source>Its predictions are offered as draft labels. Empty: no drafts, draw the labels yourself.</source>
        <translation>该模型的预测将作为草稿标注提供。留空：不生成草稿，由您自己绘制标注。</translation>
    </message>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="34"/>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="39"/>
        <source>Lowest confidence of a draft:</source>
        <translation>草稿的最低置信度：</translation>
    </message>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="41"/>
        <source>Drafts are drawn hatched in the label editor. Nothing is written until you accept a draft (A), all of an image&apos;s drafts (Shift+A), or draw and correct boxes yourself.</source>
        <translation>草稿在标注编辑器中以斜线填充显示。在您接受一个草稿（A）、一张图片的全部草稿（Shift+A），或自己绘制和修正框之前，不会写入任何文件。</translation>
    </message>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="48"/>
        <source>Open in the label editor</source>
        <translation>在标注编辑器中打开</translation>
    </message>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="65"/>
        <source>Every image of the dataset has a label file: there are no new images.</source>
        <translation>数据集中每张图片都有标注文件：没有新图片。</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/draft_labels_dialog.cpp" line="66"/>
        <source>%n image(s) of the dataset have no label file (new images).</source>
        <translation>
            <numerusform>数据集中有 %n 张图片没有标注文件（新图片）。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/draft_labels_dialog.cpp" line="73"/>
        <source>Cannot look for new images: %1</source>
        <translation>无法查找新图片：%1</translation>
    </message>
</context>
<context>
    <name>stave::studio::DraftPredictor</name>
    <message>
        <location filename="../core/studio/run/draft_labels.cpp" line="62"/>
        <source>a prediction is running</source>
        <translation>预测正在运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/draft_labels.cpp" line="66"/>
        <source>no images to predict</source>
        <translation>没有要预测的图片</translation>
    </message>
    <message>
        <location filename="../core/studio/run/draft_labels.cpp" line="82"/>
        <source>cannot make a temporary folder: %1</source>
        <translation>无法创建临时文件夹：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/draft_labels.cpp" line="87"/>
        <source>cannot make %1</source>
        <translation>无法创建 %1</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ExportDialog</name>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="38"/>
        <source>Export run config</source>
        <translation>导出运行配置</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="82"/>
        <source>Config:</source>
        <translation>配置：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="86"/>
        <source>YAML: the full resolved config (stave-train train reads it)</source>
        <translation>YAML：完整解析后的配置（stave-train train 可读取）</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="87"/>
        <source>JSON: the full resolved config</source>
        <translation>JSON：完整解析后的配置</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="88"/>
        <source>Ultralytics args.yaml (yolo train cfg=FILE)</source>
        <translation>Ultralytics args.yaml（yolo train cfg=FILE）</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="89"/>
        <source>Shell script: one machine</source>
        <translation>Shell 脚本：单台机器</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="90"/>
        <source>Slurm batch script (sbatch)</source>
        <translation>Slurm 批处理脚本（sbatch）</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="91"/>
        <source>Kubernetes: Kubeflow PyTorchJob</source>
        <translation>Kubernetes：Kubeflow PyTorchJob</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="93"/>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="98"/>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="105"/>
        <source>Job name:</source>
        <translation>作业名：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="110"/>
        <source>Machines (nodes):</source>
        <translation>机器（节点）数：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="113"/>
        <source>the config&apos;s nproc</source>
        <translation>配置中的 nproc</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="115"/>
        <source>GPUs per machine:</source>
        <translation>每台机器的 GPU 数：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="118"/>
        <source>workers + 2</source>
        <translation>workers + 2</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="119"/>
        <source>CPUs per rank:</source>
        <translation>每个进程的 CPU 数：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="122"/>
        <source>Time limit:</source>
        <translation>时间限制：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="124"/>
        <source>the cluster&apos;s default</source>
        <translation>集群默认值</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="125"/>
        <source>Partition:</source>
        <translation>分区：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="128"/>
        <source>your default account</source>
        <translation>您的默认账户</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="129"/>
        <source>Account:</source>
        <translation>账户：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="132"/>
        <source>container image with stave-train</source>
        <translation>含 stave-train 的容器镜像</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="133"/>
        <source>Container image:</source>
        <translation>容器镜像：</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="58"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="59"/>
        <source>Save As…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="181"/>
        <source>Open a project first.</source>
        <translation>请先打开项目。</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="203"/>
        <source>Cannot save: %1</source>
        <translation>无法保存：%1</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="207"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location filename="../widgets/export_dialog.cpp" line="220"/>
        <source>Save export</source>
        <translation>保存导出文件</translation>
    </message>
</context>
<context>
    <name>stave::widgets::FetchWeightsButton</name>
    <message>
        <location filename="../widgets/fetch_weights_button.cpp" line="10"/>
        <location filename="../widgets/fetch_weights_button.cpp" line="21"/>
        <location filename="../widgets/fetch_weights_button.cpp" line="38"/>
        <source>Fetch weights</source>
        <translation>取回权重</translation>
    </message>
    <message>
        <location filename="../widgets/fetch_weights_button.cpp" line="13"/>
        <location filename="../widgets/fetch_weights_button.cpp" line="22"/>
        <source>Copy this run&apos;s checkpoints (best.pt, last.pt) from the cluster into its folder here; they are not copied unasked</source>
        <translation>把该运行的检查点（best.pt、last.pt）从集群复制到本机的运行文件夹；不会自动复制</translation>
    </message>
    <message>
        <location filename="../widgets/fetch_weights_button.cpp" line="30"/>
        <source>Fetched %1</source>
        <translation>已取回 %1</translation>
    </message>
    <message>
        <location filename="../widgets/fetch_weights_button.cpp" line="47"/>
        <source>Stop fetching</source>
        <translation>停止取回</translation>
    </message>
    <message>
        <location filename="../widgets/fetch_weights_button.cpp" line="55"/>
        <source>Stop fetching (%1%)</source>
        <translation>停止取回（%1%）</translation>
    </message>
</context>
<context>
    <name>stave::widgets::FindingCard</name>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="38"/>
        <source>Apply…</source>
        <translation>应用…</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="40"/>
        <source>Make a new config of the project with this change</source>
        <translation>以此修改为项目新建一个配置</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="41"/>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="43"/>
        <source>Every finding, with the node&apos;s GPUs and topology (Hardware page)</source>
        <translation>查看全部诊断结果及本机 GPU 与拓扑（硬件页）</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="56"/>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2)</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（%2）</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="59"/>
        <source>No config change advised.</source>
        <translation>未建议修改配置。</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="60"/>
        <source>Advice: &lt;code&gt;%1&lt;/code&gt;</source>
        <translation>建议：&lt;code&gt;%1&lt;/code&gt;</translation>
    </message>
</context>
<context>
    <name>stave::widgets::FindingText</name>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="91"/>
        <source>Rule %1</source>
        <translation>规则 %1</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="92"/>
        <source>Rank %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="92"/>
        <source>Every rank</source>
        <translation>所有进程</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="105"/>
        <source>Open the run&apos;s project first.</source>
        <translation>请先打开该运行所属的项目。</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="111"/>
        <source>Cannot apply the advice: %1</source>
        <translation>无法应用建议：%1</translation>
    </message>
    <message>
        <location filename="../widgets/diagnosis_banner.cpp" line="116"/>
        <source>New config %1 with %2 (save the project to keep it)</source>
        <translation>已新建配置 %1，含 %2（保存项目以保留）</translation>
    </message>
</context>
<context>
    <name>stave::widgets::GalleryDelegate</name>
    <message>
        <location filename="../widgets/gallery_delegate.cpp" line="43"/>
        <source>cannot read</source>
        <translation>无法读取</translation>
    </message>
</context>
<context>
    <name>stave::studio::GpuTableModel</name>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="218"/>
        <source>The link runs at x%1 of x%2 lanes: reseat the card or check the slot and its BIOS setting.</source>
        <translation>链路只以 x%2 中的 x%1 通道运行：请重新插好显卡，或检查插槽及其 BIOS 设置。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="223"/>
        <source>Hot: the GPU lowers its clocks from about 85 °C on.</source>
        <translation>温度过高：GPU 约在 85 °C 起降低频率。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="251"/>
        <source>UUID %1</source>
        <translation>UUID %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="252"/>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="263"/>
        <source>PCI bus %1</source>
        <translation>PCI 总线 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="253"/>
        <source>Memory %1</source>
        <translation>显存 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="254"/>
        <source>Power limit %1 W</source>
        <translation>功耗上限 %1 W</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="255"/>
        <source>Max SM clock %1 MHz</source>
        <translation>最高 SM 频率 %1 MHz</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="234"/>
        <source>A kernel ran %1 % of the time; memory was read or written %2 % of it</source>
        <translation>内核运行时间占 %1 %；显存读写时间占 %2 %</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="264"/>
        <source>Current and maximum link: generation %1 / %2, x%3 / x%4.</source>
        <translation>当前与最高链路：第 %1 / %2 代，x%3 / x%4。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="267"/>
        <source>A lower generation at idle is normal (power saving).</source>
        <translation>空闲时代数较低是正常的（节能）。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="269"/>
        <source>Now: %1 MB/s in, %2 MB/s out</source>
        <translation>当前：输入 %1 MB/s，输出 %2 MB/s</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="279"/>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="357"/>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="281"/>
        <source>NVSwitch %1</source>
        <translation>NVSwitch %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="282"/>
        <source>link %1: %2%3%4</source>
        <translation>链路 %1：%2%3%4</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="284"/>
        <source>up</source>
        <translation>已连接</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="284"/>
        <source>down</source>
        <translation>未连接</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="285"/>
        <source>, NVLink %1</source>
        <translation>，NVLink %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="286"/>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="362"/>
        <source> → %1</source>
        <translation> → %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="302"/>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="305"/>
        <source>%1 / %2 GiB</source>
        <translation>%1 / %2 GiB</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="311"/>
        <source>%1 / %2 W</source>
        <translation>%1 / %2 W</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="312"/>
        <source>%1 W</source>
        <translation>%1 W</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="313"/>
        <source>limit %1 W</source>
        <translation>上限 %1 W</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="315"/>
        <source>%1 °C</source>
        <translation>%1 °C</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="319"/>
        <source>%1 / %2 MHz</source>
        <translation>%1 / %2 MHz</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="320"/>
        <source>%1 MHz</source>
        <translation>%1 MHz</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="321"/>
        <source>max %1 MHz</source>
        <translation>最高 %1 MHz</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="325"/>
        <source>Gen %1 x%2 (of x%3)</source>
        <translation>第 %1 代 x%2（最高 x%3）</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="329"/>
        <source>Gen %1 x%2</source>
        <translation>第 %1 代 x%2</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="346"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="360"/>
        <source>NVSwitch</source>
        <translation>NVSwitch</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="361"/>
        <source>%1 of %2 up</source>
        <translation>%2 条中 %1 条已连接</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="336"/>
        <source>NUMA %1</source>
        <translation>NUMA %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="337"/>
        <source>CPUs %1</source>
        <translation>CPU %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="368"/>
        <source>CUDA compute capability</source>
        <translation>CUDA 计算能力</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="372"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="374"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="376"/>
        <source>Utilisation</source>
        <translation>利用率</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="378"/>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="380"/>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="382"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="384"/>
        <source>SM clock</source>
        <translation>SM 频率</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="386"/>
        <source>PCIe</source>
        <translation>PCIe</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="388"/>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="390"/>
        <source>CC</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="392"/>
        <source>NUMA / CPUs</source>
        <translation>NUMA / CPU</translation>
    </message>
</context>
<context>
    <name>stave::widgets::HardwarePage</name>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="155"/>
        <source>New config from the doctor&apos;s advice</source>
        <translation>按诊断建议新建配置</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="156"/>
        <source>Name of the new config:</source>
        <translation>新配置的名称：</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="162"/>
        <source>Reading the machine&apos;s hardware…</source>
        <translation>正在读取本机硬件…</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="204"/>
        <source>Doctor&apos;s advice</source>
        <translation>诊断建议</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="233"/>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="239"/>
        <source>GPU utilisation</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="240"/>
        <source>GPU memory used</source>
        <translation>GPU 显存占用</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="240"/>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="241"/>
        <source>GPU power</source>
        <translation>GPU 功耗</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="241"/>
        <source>W</source>
        <translation>瓦</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="242"/>
        <source>GPU temperature</source>
        <translation>GPU 温度</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="242"/>
        <source>°C</source>
        <translation>°C</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="243"/>
        <source>SM clock</source>
        <translation>SM 频率</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="243"/>
        <source>MHz</source>
        <translation>MHz</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="244"/>
        <source>PCIe traffic (in + out)</source>
        <translation>PCIe 流量（输入 + 输出）</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="244"/>
        <source>MB/s</source>
        <translation>MB/s</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="263"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="290"/>
        <source>Topology</source>
        <translation>拓扑</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="304"/>
        <source>CPU and memory</source>
        <translation>CPU 与内存</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="324"/>
        <source>NCCL settings</source>
        <translation>NCCL 设置</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="360"/>
        <source>&lt;b&gt;NVIDIA GPUs: %1&lt;/b&gt;</source>
        <translation>&lt;b&gt;NVIDIA GPU：%1 块&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="361"/>
        <source>driver %1</source>
        <translation>驱动 %1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="361"/>
        <location filename="../widgets/hardware_page.cpp" line="397"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="362"/>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="363"/>
        <source>NVML %1</source>
        <translation>NVML %1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="364"/>
        <source>library %1</source>
        <translation>库 %1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="473"/>
        <source>no bottleneck found</source>
        <translation>未发现瓶颈</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="370"/>
        <source>&lt;p style=&apos;font-size:large&apos;&gt;&lt;b&gt;No NVIDIA GPU&lt;/b&gt;&lt;/p&gt;&lt;p&gt;%1&lt;/p&gt;&lt;p&gt;Runs train on the CPU (Gloo ranks). The CPUs and memory of this machine are on the CPU and memory tab.&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;font-size:large&apos;&gt;&lt;b&gt;没有 NVIDIA GPU&lt;/b&gt;&lt;/p&gt;&lt;p&gt;%1&lt;/p&gt;&lt;p&gt;训练在 CPU 上运行（Gloo 进程）。本机的 CPU 与内存见“CPU 与内存”标签页。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="393"/>
        <source>&lt;b&gt;For NCCL:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;对 NCCL 而言：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="397"/>
        <source>&lt;b&gt;CPU&lt;/b&gt;: %1</source>
        <translation>&lt;b&gt;CPU&lt;/b&gt;：%1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="398"/>
        <source>logical cores: %1</source>
        <translation>逻辑核心：%1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="399"/>
        <source>, physical: %1</source>
        <translation>，物理核心：%1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="400"/>
        <source>, sockets: %1</source>
        <translation>，插槽：%1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="405"/>
        <source>&lt;b&gt;Memory&lt;/b&gt;: %1 (%2 available: %3 unused + page cache)</source>
        <translation>&lt;b&gt;内存&lt;/b&gt;：%1（可用 %2：未使用 %3 + 页缓存）</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="410"/>
        <source>&lt;b&gt;Memory&lt;/b&gt;: %1 (%2 available)</source>
        <translation>&lt;b&gt;内存&lt;/b&gt;：%1（可用 %2）</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="412"/>
        <source>NUMA: not reported by /sys</source>
        <translation>NUMA：/sys 未提供</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="413"/>
        <source>NUMA nodes: %1</source>
        <translation>NUMA 节点：%1</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="445"/>
        <source>No run is shown on the Run page: the doctor&apos;s advice for it appears here.</source>
        <translation>运行页上没有显示运行：运行的诊断建议会显示在这里。</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="450"/>
        <source>No diagnosis of %1 yet: the doctor reports every report_period_s while a run trains, and once at its end.</source>
        <translation>%1 还没有诊断：训练期间诊断每隔 report_period_s 报告一次，结束时再报告一次。</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="456"/>
        <source>&lt;b&gt;%1&lt;/b&gt;, final report (steps judged: %2)</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;，最终报告（评估的步数：%2）</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="457"/>
        <source>&lt;b&gt;%1&lt;/b&gt;, latest report (steps judged: %2)</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;，最新报告（评估的步数：%2）</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="508"/>
        <source>The NCCL-related settings of the active config &lt;b&gt;%1&lt;/b&gt;; change them on the Train page.</source>
        <translation>当前配置 &lt;b&gt;%1&lt;/b&gt; 中与 NCCL 相关的设置；请在训练页修改。</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="511"/>
        <source>Open a project to see its config&apos;s values.</source>
        <translation>打开项目以查看其配置的取值。</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="516"/>
        <source>For this node: nccl_p2p_level = &lt;b&gt;%1&lt;/b&gt;. %2</source>
        <translation>本节点适合：nccl_p2p_level = &lt;b&gt;%1&lt;/b&gt;。%2</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="517"/>
        <source>(empty: NCCL&apos;s choice)</source>
        <translation>（留空：由 NCCL 决定）</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="522"/>
        <source>The config has %1.</source>
        <translation>配置中为 %1。</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="523"/>
        <source>(empty)</source>
        <translation>（空）</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="538"/>
        <source>&lt;b&gt;Legend&lt;/b&gt; (as &lt;code&gt;nvidia-smi topo -m&lt;/code&gt;), best first:</source>
        <translation>&lt;b&gt;图例&lt;/b&gt;（同 &lt;code&gt;nvidia-smi topo -m&lt;/code&gt;），由快到慢：</translation>
    </message>
    <message>
        <location filename="../widgets/hardware_page.cpp" line="545"/>
        <source>nccl_p2p_level&amp;nbsp;%1</source>
        <translation>nccl_p2p_level&amp;nbsp;%1</translation>
    </message>
</context>
<context>
    <name>stave::widgets::HistoryLabelDiff</name>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="30"/>
        <source>Label files, relative to the dataset&apos;s folder; `stave-train labels log DATASET --file FILE --diff` shows their edits</source>
        <translation>标注文件，相对于数据集文件夹；`stave-train labels log DATASET --file FILE --diff` 可显示其编辑</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="56"/>
        <source>Reading the datasets&apos; edit log…</source>
        <translation>正在读取数据集的编辑日志…</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="72"/>
        <source>No label file differs between these runs&apos; datasets: their content is the same.</source>
        <translation>这两次运行的数据集没有不同的标注文件：内容相同。</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="78"/>
        <source>No label file changed in the edit log between these runs, but their datasets differ (images or label files changed outside Stave).</source>
        <translation>在这两次运行之间，编辑日志中没有标注文件被修改，但它们的数据集不同（图像或标注文件在 Stave 之外被改动）。</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="80"/>
        <source>1 label file differs between these runs&apos; datasets (%1 → %2).</source>
        <translation>这两次运行的数据集有 1 个标注文件不同（%1 → %2）。</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="82"/>
        <source>%1 label files differ between these runs&apos; datasets (%2 → %3).</source>
        <translation>这两次运行的数据集有 %1 个标注文件不同（%2 → %3）。</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="87"/>
        <source>From the edits made between the two runs&apos; starts: a run did not record where the edit log stood.</source>
        <translation>依据两次运行开始之间所做的编辑：有一次运行没有记录当时编辑日志的位置。</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="94"/>
        <source>These runs trained on different datasets: which label files differ cannot be told from an edit log.</source>
        <translation>这两次运行使用了不同的数据集：无法从编辑日志判断哪些标注文件不同。</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="98"/>
        <location filename="../widgets/history_label_diff.cpp" line="122"/>
        <source>Cannot tell which label files differ: %1</source>
        <translation>无法判断哪些标注文件不同：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="103"/>
        <source>Cannot tell which label files differ: the edit log holds fewer edits than a run recorded (it was replaced or cut).</source>
        <translation>无法判断哪些标注文件不同：编辑日志中的编辑少于运行所记录的数量（日志被替换或截断）。</translation>
    </message>
    <message>
        <location filename="../widgets/history_label_diff.cpp" line="109"/>
        <source>Cannot tell which label files differ: the runs recorded neither where the edit log stood nor when they started.</source>
        <translation>无法判断哪些标注文件不同：运行既未记录编辑日志的位置，也未记录开始时间。</translation>
    </message>
</context>
<context>
    <name>stave::studio::HistoryModel</name>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="379"/>
        <source>Folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="382"/>
        <source>%1 no longer exists; Delete removes the run from the history</source>
        <translation>%1 已不存在；删除会将该运行从历史记录中移除</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="407"/>
        <source>folder missing</source>
        <translation>文件夹缺失</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="344"/>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="345"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="346"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="347"/>
        <source>early-stopped</source>
        <translation>提前停止</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="348"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="349"/>
        <source>crashed</source>
        <translation>崩溃</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="350"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="388"/>
        <source>Sessions: %1</source>
        <translation>会话：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="411"/>
        <source>%1 after %2 sessions</source>
        <translation>%1（共 %2 个会话）</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="437"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="438"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="439"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="440"/>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="441"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="442"/>
        <source>imgsz</source>
        <translation>imgsz</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="443"/>
        <source>Epochs</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="444"/>
        <source>Global batch</source>
        <translation>全局批量</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="445"/>
        <source>Best mAP50-95</source>
        <translation>最佳 mAP50-95</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="446"/>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="447"/>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="480"/>
        <source>%1 (used %2)</source>
        <translation>%1（实际使用 %2）</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model_jobs.cpp" line="153"/>
        <location filename="../core/studio/models/history_model_jobs.cpp" line="171"/>
        <source>%1 is still running; stop it first</source>
        <translation>%1 仍在运行，请先停止</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model_jobs.cpp" line="140"/>
        <source>%1 is not inside %2; not removed</source>
        <translation>%1 不在 %2 内，未删除</translation>
    </message>
    <message>
        <location filename="../core/studio/models/history_model_jobs.cpp" line="142"/>
        <source>cannot remove %1 completely</source>
        <translation>无法完整删除 %1</translation>
    </message>
</context>
<context>
    <name>stave::widgets::HistoryPage</name>
    <message>
        <location filename="../widgets/history_page.cpp" line="71"/>
        <source>Delete run</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="78"/>
        <source>New config from run</source>
        <translation>从运行新建配置</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="78"/>
        <source>Name of the new config:</source>
        <translation>新配置的名称：</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="115"/>
        <source>Filter by name, status, model or tag</source>
        <translation>按名称、状态、模型或标签筛选</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="117"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="118"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="167"/>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="170"/>
        <source>comma separated</source>
        <translation>逗号分隔</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="171"/>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="175"/>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="176"/>
        <source>Save title, tags and notes</source>
        <translation>保存标题、标签和备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="179"/>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="180"/>
        <source>New config…</source>
        <translation>新建配置…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="181"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="96"/>
        <source>Epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="97"/>
        <source>Wall time (s)</source>
        <translation>耗时（秒）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="98"/>
        <source>Images seen</source>
        <translation>已见图像数</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="99"/>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="101"/>
        <source>x axis</source>
        <translation>横轴</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="165"/>
        <source>Select two runs to see which label files their datasets differ in.</source>
        <translation>选择两次运行，查看它们的数据集有哪些标注文件不同。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="62"/>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="68"/>
        <source>Config diff</source>
        <translation>配置差异</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="74"/>
        <location filename="../widgets/history_page_compare.cpp" line="76"/>
        <location filename="../widgets/history_page_compare.cpp" line="166"/>
        <source>Labels</source>
        <translation>标注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="76"/>
        <source>Labels (%1)</source>
        <translation>标注 (%1)</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="117"/>
        <source>Hyperparameters that differ among the selected runs</source>
        <translation>所选运行之间不同的超参数</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="70"/>
        <source>Parallel coordinates</source>
        <translation>平行坐标</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="80"/>
        <source>Validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="127"/>
        <source>Export runs as CSV</source>
        <translation>将运行导出为 CSV</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="128"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="201"/>
        <source>Open run folder</source>
        <translation>打开运行文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="203"/>
        <source>New config from this run…</source>
        <translation>从此运行新建配置…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="211"/>
        <source>Delete run…</source>
        <translation>删除运行…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="265"/>
        <location filename="../widgets/history_page.cpp" line="266"/>
        <location filename="../widgets/history_page_compare.cpp" line="205"/>
        <source>History: %1</source>
        <translation>历史：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="275"/>
        <source>The history cannot be read: %1</source>
        <translation>无法读取历史：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="181"/>
        <source>Select a run to see its validation views, or two to compare them.</source>
        <translation>选择一次运行以查看其验证视图，或选择两次运行进行比较。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="301"/>
        <source>Select two or more runs to see what differs.</source>
        <translation>选择两个或更多运行以查看差异。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="309"/>
        <source>The configs are identical.</source>
        <translation>配置完全相同。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="326"/>
        <source>best mAP50-95</source>
        <translation>最佳 mAP50-95</translation>
    </message>
    <message>
        <location filename="../widgets/history_page_compare.cpp" line="340"/>
        <source>each axis: its own range</source>
        <translation>每条轴：各自的范围</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="347"/>
        <source>Reading the history…</source>
        <translation>正在读取历史…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="349"/>
        <source>No runs yet: a run started on the Run page appears here.</source>
        <translation>还没有运行：在运行页启动的运行会显示在这里。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="351"/>
        <source>No run selected.</source>
        <translation>未选择运行。</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/history_page.cpp" line="362"/>
        <source>&lt;b&gt;%n runs selected&lt;/b&gt;: %1&lt;br&gt;&lt;small&gt;The curves, the config diff and the parallel coordinates compare them, the validation views the first two; select one run to annotate it.&lt;/small&gt;</source>
        <translation>
            <numerusform>&lt;b&gt;已选择 %n 个运行&lt;/b&gt;：%1&lt;br&gt;&lt;small&gt;曲线、配置差异和平行坐标会对它们进行比较，验证视图比较前两个；只选择一个运行即可为其添加标题、标签和备注。&lt;/small&gt;</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="345"/>
        <source>Open a project to see its runs.</source>
        <translation>打开项目以查看其运行。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="208"/>
        <source>Stop fetching weights</source>
        <translation>停止取回权重</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="208"/>
        <source>Fetch weights from the cluster</source>
        <translation>从集群取回权重</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="223"/>
        <source>Fetched %1</source>
        <translation>已取回 %1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="383"/>
        <source>Sessions: %1</source>
        <translation>会话：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="389"/>
        <source>last session: %1</source>
        <translation>最后一个会话：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="394"/>
        <source>The whole run: %1</source>
        <translation>整个运行：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="396"/>
        <source>best mAP50 %1, mAP50-95 %2 (epoch %3)</source>
        <translation>最佳 mAP50 %1，mAP50-95 %2（第 %3 轮）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="414"/>
        <source>The run folder %1 no longer exists.</source>
        <translation>运行文件夹 %1 已不存在。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="248"/>
        <source>Saved the notes of %1</source>
        <translation>已保存 %1 的备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="249"/>
        <source>Cannot save the notes: %1</source>
        <translation>无法保存备注：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="434"/>
        <source>Delete the run %1? Its folder %2 is removed with its weights and logs.</source>
        <translation>删除运行 %1？其文件夹 %2 及其中的权重和日志将被删除。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="435"/>
        <source>Remove the run %1 from the history? Its folder %2 no longer exists.</source>
        <translation>从历史记录中移除运行 %1？其文件夹 %2 已不存在。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="243"/>
        <location filename="../widgets/history_page.cpp" line="442"/>
        <source>Cannot delete %1: %2</source>
        <translation>无法删除 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="242"/>
        <source>Deleted %1</source>
        <translation>已删除 %1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="454"/>
        <source>Cannot take the config of the run: %1</source>
        <translation>无法获取该运行的配置：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="463"/>
        <source>There is already a config called %1</source>
        <translation>已存在名为 %1 的配置</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="467"/>
        <source>New config %1 from the run %2 (save the project to keep it)</source>
        <translation>已从运行 %2 新建配置 %1（保存项目以保留）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="475"/>
        <source>Cannot export: %1</source>
        <translation>无法导出：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="478"/>
        <source>Exported %1 runs to %2</source>
        <translation>已将 %1 个运行导出到 %2</translation>
    </message>
</context>
<context>
    <name>stave::widgets::LabelCanvas</name>
    <message>
        <location filename="../widgets/label_canvas.cpp" line="203"/>
        <source>draft %1 %2</source>
        <translation>草稿 %1 %2</translation>
    </message>
    <message>
        <location filename="../widgets/label_canvas.cpp" line="421"/>
        <source>Draw box</source>
        <translation>画框</translation>
    </message>
    <message>
        <location filename="../widgets/label_canvas.cpp" line="421"/>
        <source>Move or resize box</source>
        <translation>移动或缩放框</translation>
    </message>
</context>
<context>
    <name>stave::widgets::LabelEditor</name>
    <message>
        <location filename="../widgets/label_editor.cpp" line="64"/>
        <source>Label editor</source>
        <translation>标注编辑器</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="67"/>
        <source>◀ Previous</source>
        <translation>◀ 上一张</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="68"/>
        <source>Next ▶</source>
        <translation>下一张 ▶</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="69"/>
        <source>Next issue (I)</source>
        <translation>下一个问题 (I)</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="70"/>
        <source>Accept prediction (A)</source>
        <translation>采纳预测 (A)</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="71"/>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="72"/>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="73"/>
        <source>Accept all drafts (Shift+A)</source>
        <translation>接受全部草稿 (Shift+A)</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="76"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="87"/>
        <source>Class (keys 1–9, 0)</source>
        <translation>类别（按键 1–9、0）</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="95"/>
        <source>Drag on empty space to draw a box; drag a box to move it, its edges to resize. Delete removes it. Dashed: the model&apos;s predictions — click one and press A to accept it. Right or middle drag pans, the wheel zooms, Ctrl+0 fits. Left/Right: previous/next image (edits are saved first).</source>
        <translation>在空白处拖动画框；拖动框可移动，拖动边缘可缩放。Delete 删除。虚线为模型的预测——点击一个并按 A 采纳。右键或中键拖动平移，滚轮缩放，Ctrl+0 适应窗口。左/右方向键：上一张/下一张（先保存编辑）。</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="103"/>
        <source>Hatched: the model&apos;s draft labels for this new image. A accepts the selected one (or the strongest), Shift+A all of them; each accept writes the label file, nothing is written before.</source>
        <translation>斜线填充：模型为这张新图片给出的草稿标注。A 接受选中的草稿（或置信度最高的一个），Shift+A 接受全部；每次接受都会写入标注文件，之前不会写入任何文件。</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="121"/>
        <source>Reload from disk</source>
        <translation>从磁盘重新加载</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="122"/>
        <source>Discard edits</source>
        <translation>放弃编辑</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="123"/>
        <source>Save elsewhere…</source>
        <translation>另存到…</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="126"/>
        <source>Writes the edited label files, and only those, to a folder you choose, with the dataset&apos;s layout (labels/train/…)</source>
        <translation>把编辑过的标注文件（仅这些文件）按数据集的目录结构（labels/train/…）写入您选择的文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="158"/>
        <source>Save the edited label files in</source>
        <translation>将编辑过的标注文件保存到</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="165"/>
        <source>%n edited label file(s) written under %1 (the dataset is unchanged).</source>
        <translation>
            <numerusform>已将 %n 个编辑过的标注文件写入 %1（数据集未改动）。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="188"/>
        <source>Saved (edit %1).</source>
        <translation>已保存（编辑 %1）。</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="193"/>
        <source>Nothing to show yet.</source>
        <translation>暂无内容。</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="208"/>
        <source>Loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="218"/>
        <source>Cannot read the image: %1</source>
        <translation>无法读取图像：%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="233"/>
        <source>The dataset cannot be written: %n edited label file(s) kept here.</source>
        <translation>
            <numerusform>数据集不可写入：%n 个编辑过的标注文件保留在此处。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="246"/>
        <source>%1 of %2 · %3 · %n box(es)</source>
        <translation>
            <numerusform>第 %1 / %2 张 · %3 · %n 个框</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="253"/>
        <source> · %n draft(s) not accepted</source>
        <translation>
            <numerusform> · %n 个草稿未接受</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="255"/>
        <source> · unsaved</source>
        <translation> · 未保存</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="257"/>
        <source>Label editor — %1</source>
        <translation>标注编辑器 — %1</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="265"/>
        <source>Not saved: the label file was changed by another program since it was opened. Reload it (your edits here are dropped) or keep editing.
%1</source>
        <translation>未保存：标注文件在打开后已被其他程序修改。请重新加载（此处的编辑将被丢弃）或继续编辑。
%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="269"/>
        <source>Not saved: the dataset cannot be written. Your edits are kept here (%n label file(s)) until you save them elsewhere or discard them.
%1</source>
        <translation>
            <numerusform>未保存：数据集不可写入。您的编辑保留在此处（%n 个标注文件），直到您将其另存到别处或放弃。
%1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="274"/>
        <source>Not saved elsewhere: %1</source>
        <translation>未能另存：%1</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="504"/>
        <source>Unsaved label edits</source>
        <translation>未保存的标注编辑</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="505"/>
        <source>The dataset cannot be written and %n edited label file(s) are only here. Close and drop them?</source>
        <translation>
            <numerusform>数据集不可写入，%n 个编辑过的标注文件只保存在这里。关闭并丢弃它们吗？</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="276"/>
        <source>Cannot read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="287"/>
        <source>No edited label files to save.</source>
        <translation>没有要保存的编辑过的标注文件。</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="290"/>
        <source>Writing %n label file(s) under %1…</source>
        <translation>
            <numerusform>正在将 %n 个标注文件写入 %1…</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="309"/>
        <location filename="../widgets/label_editor.cpp" line="322"/>
        <source>Cannot predict draft labels: %1</source>
        <translation>无法预测草稿标注：%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="313"/>
        <source>Predicting draft labels with %1 on %n image(s)…</source>
        <translation>
            <numerusform>正在用 %1 为 %n 张图片预测草稿标注…</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="321"/>
        <source>Draft labels cancelled.</source>
        <translation>草稿标注已取消。</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="344"/>
        <source>Draft labels from %1: %n box(es) on %2 image(s). Accept one (A), all (Shift+A) or correct them; nothing is written until you accept.</source>
        <translation>
            <numerusform>来自 %1 的草稿标注：%2 张图片上共 %n 个框。接受一个（A）、全部（Shift+A）或修正它们；在您接受之前不会写入任何文件。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_editor.cpp" line="351"/>
        <source>%n box(es) of classes this dataset does not have left out.</source>
        <translation>
            <numerusform>已略去 %n 个属于本数据集没有的类别的框。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="377"/>
        <source>Accept all drafts</source>
        <translation>接受全部草稿</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="398"/>
        <source>Change class</source>
        <translation>更改类别</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="407"/>
        <source>Delete box</source>
        <translation>删除框</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="434"/>
        <source>Accept prediction</source>
        <translation>采纳预测</translation>
    </message>
    <message>
        <location filename="../widgets/label_editor.cpp" line="453"/>
        <source>No more images with issues after this one.</source>
        <translation>此后没有更多有问题的图像。</translation>
    </message>
</context>
<context>
    <name>stave::studio::LabelEditorModel</name>
    <message>
        <location filename="../core/studio/models/label_editor_model.cpp" line="381"/>
        <source>%1 is inside the dataset; choose a folder outside it</source>
        <translation>%1 位于数据集内部；请选择数据集以外的文件夹</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_editor_model.cpp" line="387"/>
        <source>cannot write to %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>stave::studio::LabelIssuesModel</name>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="20"/>
        <source>Overlooked</source>
        <translation>漏标</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="22"/>
        <source>Swapped class</source>
        <translation>类别错误</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="24"/>
        <source>Badly located</source>
        <translation>位置不准</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="26"/>
        <source>Spurious</source>
        <translation>多余标注</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="217"/>
        <source>fixed</source>
        <translation>已修复</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="219"/>
        <source>not an issue</source>
        <translation>不是问题</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="221"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="245"/>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="247"/>
        <source>Issue</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="249"/>
        <source>Label class</source>
        <translation>标注类别</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="251"/>
        <source>Predicted class</source>
        <translation>预测类别</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="253"/>
        <source>Score</source>
        <translation>分数</translation>
    </message>
    <message>
        <location filename="../core/studio/models/label_issues_model.cpp" line="255"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>stave::widgets::LabelIssuesView</name>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="98"/>
        <source>Open issues CSV…</source>
        <translation>打开问题 CSV…</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="99"/>
        <source>The CSV `stave-train label-issues` writes (see docs/labels.md)</source>
        <translation>`stave-train label-issues` 写出的 CSV（见 docs/labels.md）</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="101"/>
        <source>No issues list open.</source>
        <translation>尚未打开问题列表。</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="106"/>
        <source>Enter: the usual fix (accept the prediction, take the predicted class or box, delete the box) · Delete: delete the box · C: take the predicted class · E: edit · N: not an issue</source>
        <translation>Enter：常用修复（采纳预测、改为预测类别或预测框、删除框）· Delete：删除框 · C：改为预测类别 · E：编辑 · N：不是问题</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="135"/>
        <source>Select an issue to see its image.</source>
        <translation>选择一个问题以查看其图像。</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="149"/>
        <source>Open issues CSV</source>
        <translation>打开问题 CSV</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="149"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="155"/>
        <source>Cannot read the issues: %1</source>
        <translation>无法读取问题：%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_issues_view.cpp" line="158"/>
        <source>%n issue(s) in %1</source>
        <translation>
            <numerusform>%1 中有 %n 个问题</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/label_issues_view.cpp" line="161"/>
        <source> · %n marked not an issue before (hidden)</source>
        <translation>
            <numerusform> · %n 个先前标记为不是问题（已隐藏）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="173"/>
        <source>Marked not an issue.</source>
        <translation>已标记为不是问题。</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="174"/>
        <source>Fixed (edit %1).</source>
        <translation>已修复（编辑 %1）。</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="178"/>
        <source>Not fixed: %1</source>
        <translation>未修复：%1</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="188"/>
        <location filename="../widgets/label_issues_view.cpp" line="204"/>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <location filename="../widgets/label_issues_view.cpp" line="224"/>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
</context>
<context>
    <name>stave::widgets::LiveChart</name>
    <message>
        <location filename="../widgets/live_chart.cpp" line="24"/>
        <source>No data yet</source>
        <translation>尚无数据</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="97"/>
        <source>Export PNG…</source>
        <translation>导出 PNG…</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="98"/>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="99"/>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="102"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="103"/>
        <source>Export chart data</source>
        <translation>导出图表数据</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="104"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="107"/>
        <source>Reset view</source>
        <translation>重置视图</translation>
    </message>
</context>
<context>
    <name>stave::widgets::MainWindow</name>
    <message>
        <location filename="../widgets/main_window.cpp" line="135"/>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="137"/>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="138"/>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="143"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="147"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="155"/>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="189"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="192"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="127"/>
        <location filename="../widgets/main_window.cpp" line="194"/>
        <source>Open project</source>
        <translation>打开项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="68"/>
        <source>%1 utilisation</source>
        <translation>%1 利用率</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="73"/>
        <source>%1: %2%</source>
        <translation>%1：%2%</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="78"/>
        <source>%1: mean GPU utilisation</source>
        <translation>%1：GPU 平均利用率</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="128"/>
        <location filename="../widgets/main_window.cpp" line="195"/>
        <location filename="../widgets/main_window.cpp" line="210"/>
        <source>Stave projects (*.stave)</source>
        <translation>Stave 项目 (*.stave)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="167"/>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="177"/>
        <source>Queued run started: %1</source>
        <translation>排队的运行已开始：%1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="191"/>
        <source>&amp;New Project…</source>
        <translation>新建项目(&amp;N)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="198"/>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="203"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="204"/>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="208"/>
        <source>Save project as</source>
        <translation>项目另存为</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="213"/>
        <source>&amp;Close Project</source>
        <translation>关闭项目(&amp;C)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="215"/>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="215"/>
        <source>&amp;Export Run Config…</source>
        <translation>导出运行配置(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="217"/>
        <location filename="../widgets/main_window.cpp" line="225"/>
        <location filename="../widgets/main_window.cpp" line="233"/>
        <source>Open a project first.</source>
        <translation>请先打开项目。</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="223"/>
        <source>&amp;Predict…</source>
        <translation>预测(&amp;P)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="223"/>
        <source>Ctrl+P</source>
        <translation>Ctrl+P</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="231"/>
        <source>Export &amp;Model…</source>
        <translation>导出模型(&amp;M)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="231"/>
        <source>Ctrl+Shift+E</source>
        <translation>Ctrl+Shift+E</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="243"/>
        <source>Show the &amp;Queue</source>
        <translation>显示队列(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="244"/>
        <source>Se&amp;ttings…</source>
        <translation>设置(&amp;T)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="249"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="253"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="255"/>
        <source>&amp;Documentation</source>
        <translation>文档(&amp;D)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="262"/>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="267"/>
        <source>&amp;About Stave</source>
        <translation>关于 Stave(&amp;A)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="268"/>
        <source>About Stave</source>
        <translation>关于 Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="273"/>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="302"/>
        <source>GPUs not leased by another Stave run and with little memory in use</source>
        <translation>未被其他 Stave 运行占用且显存占用较少的 GPU</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="373"/>
        <source>Save the changes to %1 first?</source>
        <translation>先保存对 %1 的修改吗？</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="388"/>
        <source>%1 no longer exists; removed from the recent projects</source>
        <translation>%1 已不存在；已从最近项目中移除</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="397"/>
        <source>%1 (not found)</source>
        <translation>%1（未找到）</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="399"/>
        <source>No recent projects</source>
        <translation>没有最近项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="401"/>
        <source>Clear the list</source>
        <translation>清空列表</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="408"/>
        <source>Cannot save as %1: %2</source>
        <translation>无法另存为 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="413"/>
        <source>Saved as %1 (earlier runs stay beside the old project file)</source>
        <translation>已另存为 %1（以前的运行仍在旧项目文件旁边）</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="418"/>
        <source>no project</source>
        <translation>无项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="448"/>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="449"/>
        <source>No GPU samples in this run</source>
        <translation>此运行没有 GPU 采样</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="456"/>
        <source>%1: %p%</source>
        <translation>%1：%p%</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="481"/>
        <source>No project file was named: give a project file (.stave), or use File ▸ Open….</source>
        <translation>未指定项目文件：请给出一个项目文件（.stave），或使用“文件 ▸ 打开…”。</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="487"/>
        <source>Cannot open the project</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="488"/>
        <source>Stave cannot open %1.</source>
        <translation>Stave 无法打开 %1。</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="489"/>
        <source>Stave cannot open a project without a file name.</source>
        <translation>Stave 无法打开没有文件名的项目。</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="496"/>
        <source>Cannot open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="502"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="513"/>
        <source>Cannot save: %1</source>
        <translation>无法保存：%1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="516"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="521"/>
        <source>Stave</source>
        <translation>Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="522"/>
        <source>%1 — Stave</source>
        <translation>%1 — Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="529"/>
        <source>A run is training</source>
        <translation>正在训练</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="530"/>
        <source>%1 is still training. Keep it training in the background (reopen the project to watch it again), or stop it?</source>
        <translation>%1 仍在训练。让它在后台继续训练（重新打开项目即可再次查看），还是停止它？</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="534"/>
        <source>Keep Training</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="536"/>
        <source>Stop the Run</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="372"/>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ModelExportDialog</name>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="27"/>
        <location filename="../widgets/model_export_dialog.cpp" line="64"/>
        <source>Export Model</source>
        <translation>导出模型</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="80"/>
        <source>Checkpoint:</source>
        <translation>检查点：</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="84"/>
        <source>ONNX (ONNX Runtime, TensorRT, OpenVINO)</source>
        <translation>ONNX（ONNX Runtime、TensorRT、OpenVINO）</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="85"/>
        <source>Ultralytics checkpoint (.pt, YOLO() loads it)</source>
        <translation>Ultralytics 检查点（.pt，YOLO() 可加载）</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="87"/>
        <source>Stave checkpoint without optimiser state (.pt)</source>
        <translation>不含优化器状态的 Stave 检查点（.pt）</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="88"/>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="93"/>
        <source>ONNX settings</source>
        <translation>ONNX 设置</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="100"/>
        <source>the training size</source>
        <translation>训练时的尺寸</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="101"/>
        <source>Input width and height in pixels, a multiple of 32</source>
        <translation>输入宽度和高度（像素），须为 32 的倍数</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="107"/>
        <source>Image size:</source>
        <translation>图像尺寸：</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="112"/>
        <source>Dynamic: any batch and image size</source>
        <translation>动态：任意批大小和图像尺寸</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="117"/>
        <source>Batch:</source>
        <translation>批大小：</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="122"/>
        <source>The ONNX operator set; older runtimes may need a lower one</source>
        <translation>ONNX 算子集版本；较旧的运行时可能需要更低的版本</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="126"/>
        <source>Opset:</source>
        <translation>算子集：</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="127"/>
        <source>Float16 (checked on a GPU before it is written)</source>
        <translation>Float16（写出前在 GPU 上校验）</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="129"/>
        <source>Precision:</source>
        <translation>精度：</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="139"/>
        <source>Save As…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="141"/>
        <source>Output file:</source>
        <translation>输出文件：</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="142"/>
        <source>Replace the file if it exists</source>
        <translation>文件已存在时替换</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="44"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="46"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="65"/>
        <source>ONNX models (*.onnx)</source>
        <translation>ONNX 模型 (*.onnx)</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="65"/>
        <source>Checkpoints (*.pt)</source>
        <translation>检查点 (*.pt)</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="152"/>
        <source>Float16 (needs a GPU to be checked on; this machine has none)</source>
        <translation>Float16（需要在 GPU 上校验；本机没有 GPU）</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="153"/>
        <source>A float16 model is checked against float32 on a GPU before it is written, and this machine has no GPU (%1). Export float32 here, or float16 on a machine with a GPU.</source>
        <translation>float16 模型在写出前要在 GPU 上与 float32 对照校验，而本机没有 GPU（%1）。请在这里导出 float32，或在有 GPU 的机器上导出 float16。</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="156"/>
        <source>none found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="194"/>
        <source>Not exported; the checkpoint could not be fetched.
%1</source>
        <translation>未导出；无法取回检查点。
%1</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="202"/>
        <source>Choose a checkpoint file (%1 is not one).</source>
        <translation>请选择一个检查点文件（%1 不是检查点文件）。</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="204"/>
        <source>Choose the output file.</source>
        <translation>请选择输出文件。</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="206"/>
        <source>The image size must be a multiple of 32 (the model&apos;s largest stride).</source>
        <translation>图像尺寸必须是 32 的倍数（模型的最大步长）。</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="208"/>
        <source>The export could not start.</source>
        <translation>导出无法开始。</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="213"/>
        <source>Exporting %1 …</source>
        <translation>正在导出 %1 …</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="226"/>
        <source>Written: %1
%2</source>
        <translation>已写出：%1
%2</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="230"/>
        <source>Stopped; nothing was written.</source>
        <translation>已停止；未写出任何文件。</translation>
    </message>
    <message>
        <location filename="../widgets/model_export_dialog.cpp" line="234"/>
        <source>Not exported; nothing was written.
%1</source>
        <translation>未导出；未写出任何文件。
%1</translation>
    </message>
</context>
<context>
    <name>stave::studio::ModelExportJob</name>
    <message>
        <location filename="../core/studio/run/model_export_job.cpp" line="48"/>
        <source>an export is running</source>
        <translation>有一个导出正在进行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/model_export_job.cpp" line="52"/>
        <source>stave-train was not found beside the studio or on PATH</source>
        <translation>在 Studio 旁边或 PATH 中找不到 stave-train</translation>
    </message>
    <message>
        <location filename="../core/studio/run/model_export_job.cpp" line="64"/>
        <source>cannot start %1</source>
        <translation>无法启动 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/model_export_job.cpp" line="79"/>
        <source>%1 already exists. Tick “Replace the file if it exists” to write over it.</source>
        <translation>%1 已存在。勾选“文件已存在时替换”即可覆盖它。</translation>
    </message>
    <message>
        <location filename="../core/studio/run/model_export_job.cpp" line="80"/>
        <source>%1 is a folder; choose a file name.</source>
        <translation>%1 是一个文件夹；请选择文件名。</translation>
    </message>
    <message>
        <location filename="../core/studio/run/model_export_job.cpp" line="85"/>
        <source>A float16 model is checked on a GPU before it is written, and this machine has none (%1). Untick Float16 to export float32, or export on a machine with a GPU.</source>
        <translation>float16 模型在写出前要在 GPU 上校验，而本机没有 GPU（%1）。取消勾选 Float16 以导出 float32，或在有 GPU 的机器上导出。</translation>
    </message>
    <message>
        <location filename="../core/studio/run/model_export_job.cpp" line="103"/>
        <source>stave-train export-weights crashed</source>
        <translation>stave-train export-weights 崩溃了</translation>
    </message>
    <message>
        <location filename="../core/studio/run/model_export_job.cpp" line="109"/>
        <source>stave-train export-weights exited with code %1</source>
        <translation>stave-train export-weights 以代码 %1 退出</translation>
    </message>
</context>
<context>
    <name>NewProject</name>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="47"/>
        <source>%1 is not a folder</source>
        <translation>%1 不是文件夹</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="84"/>
        <source>no images (.jpg, .png, …) in %1</source>
        <translation>%1 中没有图像（.jpg、.png 等）</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="87"/>
        <source>%1 images but no YOLO label files: expected labels/… beside images/… (one .txt per image)</source>
        <translation>有 %1 张图像，但没有 YOLO 标注文件：应在 images/… 旁边有 labels/…（每张图像一个 .txt）</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="120"/>
        <source>at least one class name is needed</source>
        <translation>至少需要一个类别名称</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="123"/>
        <source>class %1 has no name</source>
        <translation>类别 %1 没有名称</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="126"/>
        <source>the labels use class %1 but only %2 names were given</source>
        <translation>标注用到了类别 %1，但只给出了 %2 个名称</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="131"/>
        <source>a data.yaml already exists here; choose it as the dataset instead</source>
        <translation>这里已有 data.yaml；请改为选择它作为数据集</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="180"/>
        <source>names no dataset; choose its data.yaml</source>
        <translation>没有指定数据集；请选择它的 data.yaml</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="185"/>
        <source>dataset &apos;%1&apos; not found here (Ultralytics&apos; built-in names such as coco8.yaml are not files); choose its data.yaml</source>
        <translation>这里找不到数据集“%1”（Ultralytics 的内置名称如 coco8.yaml 并不是文件）；请选择它的 data.yaml</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="194"/>
        <source>Choose the checkpoint file (.pt) to start from.</source>
        <translation>请选择作为起点的检查点文件 (.pt)。</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="197"/>
        <source>%1 is not a checkpoint: expected a .pt file (Stave&apos;s or Ultralytics&apos;, such as yolo11n.pt)</source>
        <translation>%1 不是检查点：需要 .pt 文件（Stave 或 Ultralytics 的，例如 yolo11n.pt）</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="203"/>
        <source>%1 is a folder, not a checkpoint file</source>
        <translation>%1 是文件夹，不是检查点文件</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="206"/>
        <source>%1 does not exist. Stave does not download weights: Ultralytics publishes yolo11n.pt and the others at github.com/ultralytics/assets/releases.</source>
        <translation>%1 不存在。Stave 不会下载权重：Ultralytics 在 github.com/ultralytics/assets/releases 发布 yolo11n.pt 等权重。</translation>
    </message>
    <message>
        <location filename="../core/studio/project/new_project.cpp" line="212"/>
        <source>%1 cannot be read</source>
        <translation>无法读取 %1</translation>
    </message>
</context>
<context>
    <name>stave::widgets::NewProjectWizard</name>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="48"/>
        <source>New project</source>
        <translation>新建项目</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="67"/>
        <source>Name and folder</source>
        <translation>名称与文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="69"/>
        <source>The project file NAME.stave is made in the folder; runs and the history are kept beside it.</source>
        <translation>项目文件 NAME.stave 将创建在该文件夹中；运行记录和历史保存在它旁边。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="74"/>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="81"/>
        <location filename="../widgets/new_project_wizard.cpp" line="125"/>
        <location filename="../widgets/new_project_wizard.cpp" line="256"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="83"/>
        <source>Folder:</source>
        <translation>文件夹：</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="86"/>
        <source>Project folder</source>
        <translation>项目文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="105"/>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="107"/>
        <source>A YOLO-format dataset: its data.yaml, or a folder of images with their label files, or an Ultralytics args.yaml of an earlier run.</source>
        <translation>YOLO 格式的数据集：它的 data.yaml，或带标注文件的图像文件夹，或以前某次运行的 Ultralytics args.yaml。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="111"/>
        <source>A data.yaml (Ultralytics&apos; dataset description)</source>
        <translation>data.yaml（Ultralytics 的数据集描述）</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="112"/>
        <source>An images folder with YOLO labels (images/… and labels/…)</source>
        <translation>带 YOLO 标注的图像文件夹（images/… 与 labels/…）</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="113"/>
        <source>An Ultralytics args.yaml to import (its settings and dataset)</source>
        <translation>导入 Ultralytics args.yaml（其设置与数据集）</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="136"/>
        <source>The data.yaml with path, train, val and names.</source>
        <translation>包含 path、train、val 和 names 的 data.yaml。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="137"/>
        <source>The images folder (or the dataset folder above images/). The wizard asks for the class names and writes a data.yaml there.</source>
        <translation>图像文件夹（或 images/ 上一级的数据集文件夹）。向导会询问类别名称并在那里写入 data.yaml。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="139"/>
        <source>args.yaml from an Ultralytics run folder; its `data` must be a data.yaml file that exists here.</source>
        <translation>来自 Ultralytics 运行文件夹的 args.yaml；其 `data` 必须是本机上存在的 data.yaml 文件。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="149"/>
        <source>Images folder</source>
        <translation>图像文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="151"/>
        <source>Choose a file</source>
        <translation>选择文件</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="152"/>
        <source>YAML files (*.yaml *.yml);;All files (*)</source>
        <translation>YAML 文件 (*.yaml *.yml);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="167"/>
        <source>Class names</source>
        <translation>类别名称</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="169"/>
        <source>Name the classes in the order of their ids, separated by commas. A data.yaml is written beside the images.</source>
        <translation>按类别编号顺序填写类别名称，用逗号分隔。data.yaml 将写在图像旁边。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="177"/>
        <source>Classes:</source>
        <translation>类别：</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="188"/>
        <source>Check the dataset</source>
        <translation>检查数据集</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="190"/>
        <source>Every split is scanned: counts, classes and every problem found. A dataset with problems can still be used; bad rows and images are left out of training.</source>
        <translation>扫描每个划分：数量、类别和发现的每个问题。有问题的数据集仍可使用；有问题的行和图像不参与训练。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="211"/>
        <source>Use these settings (they can be changed on the Train page)</source>
        <translation>使用这些设置（之后可在训练页修改）</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="225"/>
        <source>Start from</source>
        <translation>起点</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="229"/>
        <source>Random weights (train from scratch), network:</source>
        <translation>随机权重（从头训练），网络：</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="231"/>
        <source>A checkpoint file (.pt):</source>
        <translation>检查点文件 (.pt)：</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="255"/>
        <source>yolo11n.pt, yolov8n.pt or a run&apos;s weights/best.pt</source>
        <translation>yolo11n.pt、yolov8n.pt 或某次运行的 weights/best.pt</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="259"/>
        <source>A checkpoint gives the network and its weights: Ultralytics&apos; COCO-pretrained yolo11n.pt … yolo11x.pt and yolov8n.pt … yolov8x.pt, or an earlier run&apos;s best.pt (Stave&apos;s or Ultralytics&apos;). The class outputs start afresh when the dataset has other classes. Stave does not download weights.</source>
        <translation>检查点提供网络及其权重：Ultralytics 在 COCO 上预训练的 yolo11n.pt … yolo11x.pt 和 yolov8n.pt … yolov8x.pt，或之前某次运行的 best.pt（Stave 或 Ultralytics 的）。数据集的类别不同时，类别输出重新初始化。Stave 不会下载权重。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="290"/>
        <source>Start weights</source>
        <translation>起始权重</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="291"/>
        <source>Checkpoints (*.pt);;All files (*)</source>
        <translation>检查点 (*.pt);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="359"/>
        <source>Looking at %1…</source>
        <translation>正在查看 %1…</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="372"/>
        <source>%1 images, %2 with labels; class ids up to %3. data.yaml goes to %4 (train: %5, val: %6).</source>
        <translation>%1 张图像，%2 张有标注；类别编号最大为 %3。data.yaml 将写到 %4（train：%5，val：%6）。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="399"/>
        <source>%1 is not a file (expected a data.yaml)</source>
        <translation>%1 不是文件（应为 data.yaml）</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="405"/>
        <source>%1 is not a folder</source>
        <translation>%1 不是文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="447"/>
        <source>Cannot create the project: %1</source>
        <translation>无法创建项目：%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/new_project_wizard.cpp" line="470"/>
        <source>&lt;b&gt;Suggested for this machine (%n GPU(s)) and %1 training images:&lt;/b&gt;</source>
        <translation>
            <numerusform>&lt;b&gt;针对本机（%n 块 GPU）和 %1 张训练图像的建议设置：&lt;/b&gt;</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="473"/>
        <source>&lt;b&gt;Suggested for this machine (no GPU: training on the CPU) and %1 training images:&lt;/b&gt;</source>
        <translation>&lt;b&gt;针对本机（无 GPU：在 CPU 上训练）和 %1 张训练图像的建议设置：&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="481"/>
        <source>%1 is suggested: %2</source>
        <translation>建议使用 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="496"/>
        <source>Checking %1…</source>
        <translation>正在检查 %1…</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="520"/>
        <source>No problems found. Finish creates the project.</source>
        <translation>未发现问题。点“完成”创建项目。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="523"/>
        <source>Problems were found (listed above). The dataset is usable: bad rows and images are left out of training.</source>
        <translation>发现了问题（见上方列表）。数据集可以使用：有问题的行和图像不参与训练。</translation>
    </message>
    <message>
        <location filename="../widgets/new_project_wizard.cpp" line="527"/>
        <source>This dataset cannot be used as it is: fix what is listed above, or go Back and choose another.</source>
        <translation>此数据集目前无法使用：请修正上方列出的问题，或返回选择其他数据集。</translation>
    </message>
</context>
<context>
    <name>stave::studio::NumaModel</name>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="479"/>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="498"/>
        <source>node %1</source>
        <translation>节点 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="501"/>
        <source>%1 (%2 CPUs)</source>
        <translation>%1（%2 个 CPU）</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="516"/>
        <source>Memory nothing uses (MemFree). The host&apos;s &quot;available&quot; also counts the page cache, which the kernel frees when a process needs it.</source>
        <translation>没有被任何程序使用的内存（MemFree）。主机的“可用”内存还包括页缓存，内核会在进程需要时释放它。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="521"/>
        <source>NUMA node</source>
        <translation>NUMA 节点</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="523"/>
        <source>CPUs</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="525"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="527"/>
        <source>Unused</source>
        <translation>未使用</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="529"/>
        <source>GPUs near it</source>
        <translation>就近的 GPU</translation>
    </message>
</context>
<context>
    <name>stave::widgets::PredictDialog</name>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="118"/>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="132"/>
        <source>Predict</source>
        <translation>预测</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="158"/>
        <source>Checkpoint:</source>
        <translation>检查点：</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="161"/>
        <source>an image, or a folder searched for images</source>
        <translation>一张图像，或在其中查找图像的文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="164"/>
        <source>Image…</source>
        <translation>图像…</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="165"/>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="168"/>
        <source>Images:</source>
        <translation>图像：</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="176"/>
        <source>Boxes of one class overlapping more than this are merged (NMS)</source>
        <translation>同一类别重叠超过此值的框将被合并（NMS）</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="177"/>
        <source>NMS IoU:</source>
        <translation>NMS IoU：</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="183"/>
        <source>the checkpoint&apos;s</source>
        <translation>检查点的设置</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="184"/>
        <source>Inference size in pixels, a multiple of 32</source>
        <translation>推理尺寸（像素），须为 32 的倍数</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="186"/>
        <source>Image size:</source>
        <translation>图像尺寸：</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="189"/>
        <source>Options:</source>
        <translation>选项：</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="193"/>
        <source>Output:</source>
        <translation>输出：</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="200"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="202"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="204"/>
        <source>Save annotated images…</source>
        <translation>保存标注后的图像…</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="234"/>
        <source>Classes shown:</source>
        <translation>显示的类别：</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="250"/>
        <source>confidence ≥ %1</source>
        <translation>置信度 ≥ %1</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="259"/>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="260"/>
        <source>Images (*.jpg *.jpeg *.png *.bmp *.tif *.tiff *.webp)</source>
        <translation>图像 (*.jpg *.jpeg *.png *.bmp *.tif *.tiff *.webp)</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="281"/>
        <source>Saving %1 annotated images in %2…</source>
        <translation>正在将 %1 张标注图像保存到 %2…</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="288"/>
        <source>Saved %1 annotated images in %2</source>
        <translation>已将 %1 张标注图像保存到 %2</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="295"/>
        <source>Saving failed: %1</source>
        <translation>保存失败：%1</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="330"/>
        <source>The checkpoint could not be fetched: %1</source>
        <translation>无法取回检查点：%1</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="382"/>
        <source>This checkpoint was trained on other classes than the project&apos;s dataset (checkpoint: %1 — %2; dataset: %3 — %4); boxes carry the checkpoint&apos;s names.</source>
        <translation>此检查点训练时使用的类别与项目数据集不同（检查点：%1 — %2；数据集：%3 — %4）；框上显示检查点的类别名。</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="396"/>
        <source>class %1</source>
        <translation>类别 %1</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="398"/>
        <source>No images were found in the source.</source>
        <translation>在来源中没有找到图像。</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="400"/>
        <source>%1 detections (confidence ≥ %2) in %3 images; stave-train wrote %4</source>
        <translation>%3 张图像中有 %1 个检测结果（置信度 ≥ %2）；stave-train 已写入 %4</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="265"/>
        <source>Images folder</source>
        <translation>图像文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="276"/>
        <source>Save annotated images into</source>
        <translation>将标注后的图像保存到</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="338"/>
        <source>Choose a checkpoint file (%1 is not one).</source>
        <translation>请选择检查点文件（%1 不是）。</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="342"/>
        <source>Choose an image or a folder of images (%1 does not exist).</source>
        <translation>请选择一张图像或一个图像文件夹（%1 不存在）。</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="347"/>
        <source>The image size must be a multiple of 32 (%1 is not).</source>
        <translation>图像尺寸必须是 32 的倍数（%1 不是）。</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="367"/>
        <source>Predicting… (results in %1)</source>
        <translation>正在预测…（结果在 %1）</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="419"/>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="422"/>
        <source>Prediction failed: %1</source>
        <translation>预测失败：%1</translation>
    </message>
    <message>
        <location filename="../widgets/predict_dialog.cpp" line="459"/>
        <source>Cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
</context>
<context>
    <name>stave::studio::PredictJob</name>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="57"/>
        <source>a prediction is running</source>
        <translation>已有预测正在运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="61"/>
        <source>stave-train was not found beside the studio or on PATH</source>
        <translation>在工作室旁边或 PATH 中找不到 stave-train</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="76"/>
        <source>cannot start %1</source>
        <translation>无法启动 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="110"/>
        <source>stave-train predict crashed</source>
        <translation>stave-train predict 崩溃了</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="116"/>
        <source>stave-train predict exited with code %1</source>
        <translation>stave-train predict 以代码 %1 退出</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="124"/>
        <source>stave-train predict printed no summary</source>
        <translation>stave-train predict 没有输出摘要</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="171"/>
        <source>cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="183"/>
        <source>%1:1: not a predictions file (header %2)</source>
        <translation>%1:1：不是预测结果文件（表头为 %2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="191"/>
        <source>%1:%2: expected 7 columns</source>
        <translation>%1:%2：应有 7 列</translation>
    </message>
    <message>
        <location filename="../core/studio/run/predict_job.cpp" line="204"/>
        <source>%1:%2: not a number</source>
        <translation>%1:%2：不是数字</translation>
    </message>
</context>
<context>
    <name>stave::studio::ProblemsModel</name>
    <message>
        <location filename="../core/studio/models/dataset_scan.cpp" line="298"/>
        <source>Split</source>
        <translation>划分</translation>
    </message>
    <message>
        <location filename="../core/studio/models/dataset_scan.cpp" line="300"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../core/studio/models/dataset_scan.cpp" line="302"/>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../core/studio/models/dataset_scan.cpp" line="304"/>
        <source>Message</source>
        <translation>说明</translation>
    </message>
</context>
<context>
    <name>stave::studio::ProjectDocument</name>
    <message>
        <location filename="../core/studio/project/project_document.cpp" line="34"/>
        <location filename="../core/studio/project/project_document.cpp" line="48"/>
        <location filename="../core/studio/project/project_document.cpp" line="129"/>
        <location filename="../core/studio/project/project_document.cpp" line="194"/>
        <source>No project is open.</source>
        <translation>没有打开的项目。</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_folders.cpp" line="51"/>
        <source>no results.csv yet</source>
        <translation>尚无 results.csv</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_folders.cpp" line="65"/>
        <source>results.csv has no mAP columns</source>
        <translation>results.csv 中没有 mAP 列</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_folders.cpp" line="78"/>
        <source>results.csv line %1 is malformed</source>
        <translation>results.csv 第 %1 行格式错误</translation>
    </message>
    <message>
        <location filename="../core/studio/project/project_document.cpp" line="130"/>
        <source>A config needs a name.</source>
        <translation>配置需要一个名称。</translation>
    </message>
    <message>
        <location filename="../core/studio/project/project_document.cpp" line="131"/>
        <source>A config name cannot start or end with a space.</source>
        <translation>配置名称不能以空格开头或结尾。</translation>
    </message>
    <message>
        <location filename="../core/studio/project/project_document.cpp" line="132"/>
        <source>A config name has at most 64 characters.</source>
        <translation>配置名称最多 64 个字符。</translation>
    </message>
    <message>
        <location filename="../core/studio/project/project_document.cpp" line="134"/>
        <source>A config name is one line of text.</source>
        <translation>配置名称只能是一行文本。</translation>
    </message>
    <message>
        <location filename="../core/studio/project/project_document.cpp" line="136"/>
        <source>There is already a config called &apos;%1&apos;.</source>
        <translation>已存在名为“%1”的配置。</translation>
    </message>
    <message>
        <location filename="../core/studio/project/project_document.cpp" line="147"/>
        <location filename="../core/studio/project/project_document.cpp" line="160"/>
        <location filename="../core/studio/project/project_document.cpp" line="177"/>
        <source>There is no config called &apos;%1&apos;.</source>
        <translation>没有名为“%1”的配置。</translation>
    </message>
    <message>
        <location filename="../core/studio/project/project_document.cpp" line="181"/>
        <source>A project keeps at least one config.</source>
        <translation>项目至少要保留一个配置。</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ProjectPage</name>
    <message>
        <location filename="../widgets/project_page.cpp" line="32"/>
        <source>Change Dataset…</source>
        <translation>更改数据集…</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="34"/>
        <source>Every config of the project trains on its dataset</source>
        <translation>项目的每个配置都使用其数据集训练</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="38"/>
        <source>Run configs (the active one is marked):</source>
        <translation>运行配置（标出当前使用的）：</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="51"/>
        <source>New…</source>
        <translation>新建…</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="52"/>
        <source>Copy…</source>
        <translation>复制…</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="53"/>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="54"/>
        <location filename="../widgets/project_page.cpp" line="229"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="55"/>
        <source>Make Active</source>
        <translation>设为当前</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="60"/>
        <source>Runs (runs/ beside the project, newest first):</source>
        <translation>训练记录（项目旁的 runs/，最新在前）：</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="103"/>
        <source>&lt;h2&gt;No project open&lt;/h2&gt;&lt;p&gt;Open a .stave file with File ▸ Open, or create one with &lt;code&gt;stave-train new-project&lt;/code&gt;.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;没有打开的项目&lt;/h2&gt;&lt;p&gt;用 文件 ▸ 打开 打开 .stave 文件，或用 &lt;code&gt;stave-train new-project&lt;/code&gt; 创建项目。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="109"/>
        <source>&lt;h2&gt;%1&lt;/h2&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;File&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Dataset&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;h2&gt;%1&lt;/h2&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;文件&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;数据集&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="115"/>
        <source>%1 (active)</source>
        <translation>%1（当前）</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="148"/>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="150"/>
        <source>%1 — %2 epoch(s), best mAP50-95 %3 (mAP50 %4)</source>
        <translation>%1 — %2 轮，最佳 mAP50-95 %3（mAP50 %4）</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="156"/>
        <source>No runs yet.</source>
        <translation>还没有训练记录。</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="192"/>
        <location filename="../widgets/project_page.cpp" line="194"/>
        <source>%1 copy</source>
        <translation>%1 副本</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="192"/>
        <location filename="../widgets/project_page.cpp" line="194"/>
        <source>config</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="196"/>
        <source>Copy Config</source>
        <translation>复制配置</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="196"/>
        <location filename="../widgets/project_page.cpp" line="203"/>
        <source>New Config</source>
        <translation>新建配置</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="197"/>
        <source>Name of the copy of &apos;%1&apos;:</source>
        <translation>“%1”副本的名称：</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="198"/>
        <source>Name of the new config (it starts from the defaults):</source>
        <translation>新配置的名称（从默认值开始）：</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="211"/>
        <location filename="../widgets/project_page.cpp" line="215"/>
        <source>Rename Config</source>
        <translation>重命名配置</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="211"/>
        <source>New name for &apos;%1&apos;:</source>
        <translation>“%1”的新名称：</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="223"/>
        <location filename="../widgets/project_page.cpp" line="235"/>
        <source>Delete Config</source>
        <translation>删除配置</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="224"/>
        <source>Delete the config &apos;%1&apos; from the project?</source>
        <translation>从项目中删除配置“%1”？</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="227"/>
        <source>Runs already trained with it keep their own copy (config.yaml in the run folder). Nothing changes on disk until you save.</source>
        <translation>已用它训练的运行保留各自的副本（运行文件夹中的 config.yaml）。在保存之前，磁盘上的内容不会改变。</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="246"/>
        <source>Choose the Project&apos;s Dataset</source>
        <translation>选择项目的数据集</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="247"/>
        <source>Dataset description (*.yaml *.yml)</source>
        <translation>数据集描述 (*.yaml *.yml)</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="254"/>
        <source>Change Dataset</source>
        <translation>更改数据集</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="255"/>
        <source>%1 cannot be the project&apos;s dataset.</source>
        <translation>%1 不能用作项目的数据集。</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <location filename="../widgets/help_dialogs.cpp" line="33"/>
        <source>&lt;h2&gt;Stave %1&lt;/h2&gt;&lt;p&gt;Trains YOLO object detectors fast on one to many GPUs, and shows why a run is slow.&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2 (built with %3)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;LibTorch (the engine, stave-train)&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;QCustomPlot&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;SQLite&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;h2&gt;Stave %1&lt;/h2&gt;&lt;p&gt;在一块到多块 GPU 上快速训练 YOLO 目标检测器，并显示运行为何变慢。&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2（编译时为 %3）&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;LibTorch（引擎，stave-train）&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;QCustomPlot&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;SQLite&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
</context>
<context>
    <name>stave::widgets::QueuePanel</name>
    <message>
        <location filename="../widgets/queue_panel.cpp" line="27"/>
        <source>No runs queued.

“Queue run” adds the Run page&apos;s config: it starts when its GPUs are free, after the runs before it.</source>
        <translation>队列中没有运行。

“加入队列”会添加运行页面的配置：在它需要的 GPU 空闲时、排在它前面的运行之后开始。</translation>
    </message>
    <message>
        <location filename="../widgets/queue_panel.cpp" line="37"/>
        <source>Queue run</source>
        <translation>加入队列</translation>
    </message>
    <message>
        <location filename="../widgets/queue_panel.cpp" line="39"/>
        <source>Queue the Run page&apos;s config: it starts when its GPUs are free</source>
        <translation>将运行页所选配置加入队列：其 GPU 空闲时开始</translation>
    </message>
    <message>
        <location filename="../widgets/queue_panel.cpp" line="40"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../widgets/queue_panel.cpp" line="44"/>
        <source>Move the selected run up: it starts earlier</source>
        <translation>将所选运行上移：更早开始</translation>
    </message>
    <message>
        <location filename="../widgets/queue_panel.cpp" line="47"/>
        <source>Move the selected run down</source>
        <translation>将所选运行下移</translation>
    </message>
    <message>
        <location filename="../widgets/queue_panel.cpp" line="52"/>
        <source>Take the selected run off the queue (a running one is stopped on the Run page)</source>
        <translation>将所选运行移出队列（正在运行的需在运行页停止）</translation>
    </message>
</context>
<context>
    <name>stave::studio::RunController</name>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="81"/>
        <source>killed after the %1 s grace period</source>
        <translation>在 %1 秒宽限期后被强制结束</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="184"/>
        <location filename="../core/studio/run/run_controller.cpp" line="218"/>
        <source>%1 is still running</source>
        <translation>%1 仍在运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="214"/>
        <source>no run to resume</source>
        <translation>没有可继续的运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="270"/>
        <location filename="../core/studio/run/run_controller_watch.cpp" line="104"/>
        <location filename="../core/studio/run/run_session.cpp" line="167"/>
        <source>%1 is not a folder</source>
        <translation>%1 不是文件夹</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="498"/>
        <source>the history store could not open this run (%1); reading its events.jsonl instead</source>
        <translation>历史数据库无法打开此运行（%1）；改为读取其 events.jsonl</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="568"/>
        <source>%1 was removed or cannot be read; the charts keep what was read</source>
        <translation>%1 已被删除或无法读取；图表保留已读取的内容</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_watch.cpp" line="154"/>
        <source>started outside the studio</source>
        <translation>在工作室之外启动</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_watch.cpp" line="158"/>
        <source>no final event, and no event for %1 min; the run was not started here</source>
        <translation>没有结束事件，且已 %1 分钟没有事件；该运行不是在这里启动的</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_watch.cpp" line="184"/>
        <source>started on %1; no final event</source>
        <translation>在 %1 上启动；没有结束事件</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_watch.cpp" line="198"/>
        <source>exit status %1</source>
        <translation>退出状态 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_watch.cpp" line="203"/>
        <source>the process ended without a final event</source>
        <translation>进程结束但没有结束事件</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_watch.cpp" line="206"/>
        <source>killed with its process group (no exit status)</source>
        <translation>与其进程组一起被结束（无退出状态）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="600"/>
        <source>no run</source>
        <translation>无运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="601"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="602"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="603"/>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="604"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="605"/>
        <source>early-stopped</source>
        <translation>提前停止</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="606"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="607"/>
        <source>failed to start</source>
        <translation>启动失败</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="608"/>
        <source>crashed</source>
        <translation>崩溃</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="616"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller.cpp" line="619"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_cluster.cpp" line="41"/>
        <location filename="../core/studio/run/run_controller_cluster.cpp" line="72"/>
        <source>the cluster profile &apos;%1&apos; of this run is no longer in Settings</source>
        <translation>此运行的集群配置“%1”已不在设置中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_cluster.cpp" line="93"/>
        <source>pending in Slurm: %1</source>
        <translation>在 Slurm 中排队：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_cluster.cpp" line="112"/>
        <source>Slurm job %1 was cancelled</source>
        <translation>Slurm 作业 %1 已被取消</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_cluster.cpp" line="116"/>
        <source>Slurm job %1 ended %2%3 without a final event; its output: %4</source>
        <translation>Slurm 作业 %1 以 %2%3 结束，没有最终事件；其输出：%4</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_controller_cluster.cpp" line="117"/>
        <source> (exit code %1)</source>
        <translation>（退出码 %1）</translation>
    </message>
</context>
<context>
    <name>stave::widgets::RunPage</name>
    <message>
        <location filename="../widgets/run_page.cpp" line="81"/>
        <source>New config from the doctor&apos;s advice</source>
        <translation>按诊断建议新建配置</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="82"/>
        <source>Name of the new config:</source>
        <translation>新配置的名称：</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="130"/>
        <source>Config</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="134"/>
        <source>Processes</source>
        <translation>进程数</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="138"/>
        <location filename="../widgets/run_page_control.cpp" line="185"/>
        <source>Worker processes on this machine (one per GPU; on a CPU, Gloo ranks)</source>
        <translation>本机上的工作进程（每块 GPU 一个；在 CPU 上为 Gloo 进程）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="140"/>
        <source>On</source>
        <translation>运行于</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="143"/>
        <source>Train on this machine, or send the run to a cluster (cluster profiles: Settings ▸ Clusters)</source>
        <translation>在本机训练，或把运行发送到集群（集群配置：设置 ▸ 集群）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="146"/>
        <location filename="../widgets/run_page_control.cpp" line="182"/>
        <source>Start (F5)</source>
        <translation>开始 (F5)</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="148"/>
        <source>Stop (Shift+F5)</source>
        <translation>停止 (Shift+F5)</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="150"/>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="154"/>
        <source>same epochs</source>
        <translation>轮次不变</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="155"/>
        <source>epochs </source>
        <translation>轮次 </translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="156"/>
        <source>Resume with this many epochs in all (0 keeps the run&apos;s own)</source>
        <translation>以此总轮次继续（0 保持该运行原有的轮次）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="164"/>
        <source>[weights] %1</source>
        <translation>[权重] %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="169"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="173"/>
        <source>Show another run of the project</source>
        <translation>显示项目的另一个运行</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="70"/>
        <source>iteration</source>
        <translation>迭代</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="70"/>
        <source>epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="76"/>
        <source>Train losses per iteration</source>
        <translation>每次迭代的训练损失</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="76"/>
        <location filename="../widgets/run_page_charts.cpp" line="77"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="77"/>
        <source>Losses per epoch (train, val)</source>
        <translation>每轮损失（训练、验证）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="78"/>
        <source>Validation: P, R, mAP</source>
        <translation>验证：P、R、mAP</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="79"/>
        <source>Learning rate per group</source>
        <translation>各参数组学习率</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="79"/>
        <source>lr</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="80"/>
        <source>Samples/s (all ranks)</source>
        <translation>样本/秒（所有进程）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="80"/>
        <source>images/s</source>
        <translation>图像/秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="81"/>
        <source>GPU utilisation</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="82"/>
        <source>GPU memory</source>
        <translation>GPU 显存</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="82"/>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="83"/>
        <source>GPU power</source>
        <translation>GPU 功耗</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="83"/>
        <source>W</source>
        <translation>瓦</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="84"/>
        <source>CPU and memory</source>
        <translation>CPU 与内存</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="35"/>
        <location filename="../widgets/run_page_charts.cpp" line="111"/>
        <source>Step time per rank</source>
        <translation>各进程的步时间</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="125"/>
        <source>ms per step</source>
        <translation>每步毫秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="126"/>
        <source>rank</source>
        <translation>进程</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="128"/>
        <source>data wait</source>
        <translation>等待数据</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="128"/>
        <source>H2D</source>
        <translation>H2D</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="128"/>
        <source>forward+backward</source>
        <translation>前向+反向</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="129"/>
        <source>all-reduce wait</source>
        <translation>等待 all-reduce</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="129"/>
        <source>optimiser</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="168"/>
        <source>Smoothing of the per-iteration charts</source>
        <translation>逐迭代图表的平滑</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="174"/>
        <source>Exponential moving average of the losses and samples/s per iteration (0 = off); the raw line stays faint behind</source>
        <translation>对每次迭代的损失和样本/秒做指数移动平均（0 = 关闭）；原始曲线以淡色保留在后面</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="101"/>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="110"/>
        <source>Validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="117"/>
        <source>Warnings and errors of the run appear here.</source>
        <translation>运行的警告和错误显示在这里。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="200"/>
        <source>Run ▸ Start</source>
        <translation>运行 ▸ 开始</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="204"/>
        <source>Run ▸ Stop</source>
        <translation>运行 ▸ 停止</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="239"/>
        <location filename="../widgets/run_page_events.cpp" line="262"/>
        <source>[studio] %1</source>
        <translation>[工作室] %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="304"/>
        <source>%1 (cluster)</source>
        <translation>%1（集群）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="315"/>
        <source>Reattached to %1, still running</source>
        <translation>已重新连接到 %1，仍在运行</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="319"/>
        <source>Following %1 on the cluster</source>
        <translation>正在跟踪集群上的 %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="70"/>
        <source>The config “%1” cannot start:</source>
        <translation>配置“%1”无法启动：</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="355"/>
        <source>No run shown</source>
        <translation>未显示运行</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="233"/>
        <source>[studio] cannot read the samples of the zoomed range: %1</source>
        <translation>[工作室] 无法读取放大区间的采样：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="303"/>
        <source>%1 (running)</source>
        <translation>%1（运行中）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="70"/>
        <source>time since the start</source>
        <translation>自开始以来的时间</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="32"/>
        <source>Open a project first.</source>
        <translation>请先打开项目。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="36"/>
        <source>%1 is still running; stop it first.</source>
        <translation>%1 仍在运行，请先停止。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="41"/>
        <location filename="../widgets/run_page_control.cpp" line="69"/>
        <location filename="../widgets/run_page_control.cpp" line="80"/>
        <source>Start Training</source>
        <translation>开始训练</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="42"/>
        <source>The project has unsaved changes.</source>
        <translation>项目有未保存的修改。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="44"/>
        <source>The run trains with the project as saved. Save it and start?</source>
        <translation>运行使用已保存的项目进行训练。保存并开始吗？</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="45"/>
        <source>Save and Start</source>
        <translation>保存并开始</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="50"/>
        <source>Not started: the project has unsaved changes.</source>
        <translation>未开始：项目有未保存的修改。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="55"/>
        <source>Not started: the project could not be saved: %1</source>
        <translation>未开始：无法保存项目：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="75"/>
        <source>Not started: %1</source>
        <translation>未开始：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="81"/>
        <source>%1 may not finish:</source>
        <translation>%1 可能无法完成：</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="85"/>
        <source>Start Anyway</source>
        <translation>仍然开始</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="88"/>
        <source>Not started.</source>
        <translation>未开始。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="93"/>
        <location filename="../widgets/run_page_control.cpp" line="113"/>
        <source>Cannot start: %1</source>
        <translation>无法开始：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="107"/>
        <source>Started %1</source>
        <translation>已开始 %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="147"/>
        <source>Not sent: the cluster profile “%1” is no longer in Settings.</source>
        <translation>未发送：集群配置“%1”已不在设置中。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="154"/>
        <source>Not sent: %1</source>
        <translation>未发送：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="158"/>
        <source>Sending %1 to %2…</source>
        <translation>正在把 %1 发送到 %2…</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="167"/>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="168"/>
        <source>Cluster: %1</source>
        <translation>集群：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="182"/>
        <source>Run on cluster (F5)</source>
        <translation>在集群上运行 (F5)</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="183"/>
        <source>Ranks per node on the cluster when its profile asks for no GPUs (CPU ranks) or takes the config&apos;s number</source>
        <translation>集群配置不申请 GPU（CPU 进程）或沿用配置的进程数时，每个节点的进程数</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="195"/>
        <location filename="../widgets/run_page_control.cpp" line="200"/>
        <source>Cannot stop: %1</source>
        <translation>无法停止：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="204"/>
        <source>stopping: Slurm sends SIGTERM; the trainer finishes its step and writes a checkpoint…</source>
        <translation>正在停止：Slurm 发送 SIGTERM；训练器完成当前步骤并写入检查点…</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="205"/>
        <source>stopping: the trainer finishes its step and writes a checkpoint…</source>
        <translation>正在停止：训练器完成当前步并写入检查点…</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="220"/>
        <location filename="../widgets/run_page_control.cpp" line="226"/>
        <source>Cannot resume: %1</source>
        <translation>无法继续：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_control.cpp" line="216"/>
        <source>Resumed %1</source>
        <translation>已继续 %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="410"/>
        <source>This run wrote no checkpoint: there is nothing to resume; start it again</source>
        <translation>此运行没有写出检查点：没有可继续的内容；请重新开始</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="75"/>
        <source>box</source>
        <translation>box</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="75"/>
        <source>cls</source>
        <translation>cls</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="75"/>
        <source>dfl</source>
        <translation>dfl</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="94"/>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="94"/>
        <source>samples/s, rank 0</source>
        <translation>样本/秒（rank 0）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="80"/>
        <source>train box</source>
        <translation>训练 box</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="80"/>
        <source>train cls</source>
        <translation>训练 cls</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="80"/>
        <source>train dfl</source>
        <translation>训练 dfl</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="80"/>
        <source>val box</source>
        <translation>验证 box</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="80"/>
        <source>val cls</source>
        <translation>验证 cls</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="80"/>
        <source>val dfl</source>
        <translation>验证 dfl</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="102"/>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="161"/>
        <source>[run] start weights: %1 of %2 items from %3 (%4)</source>
        <translation>[运行] 起始权重：从 %3（%4）载入 %2 项中的 %1 项</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="170"/>
        <source>[node] %1</source>
        <translation>[节点] %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="29"/>
        <source>[studio] a first look at a long run: every %1th iteration and sample, until the history store has read its whole log (once, in the background)</source>
        <translation>[工作室] 长运行的初览：每 %1 个迭代和采样取一个，直到历史库读完整个日志（仅一次，在后台）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="99"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="99"/>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="189"/>
        <source>[rank %1] straggler: %2</source>
        <translation>[进程 %1] 拖后腿：%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="195"/>
        <source>[launcher] warning: %1</source>
        <translation>[启动器] 警告：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="196"/>
        <source>[rank %1] warning: %2</source>
        <translation>[进程 %1] 警告：%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="200"/>
        <source>[launcher] error: %1</source>
        <translation>[启动器] 错误：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="201"/>
        <source>[rank %1] error: %2</source>
        <translation>[进程 %1] 错误：%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="440"/>
        <location filename="../widgets/run_page_events.cpp" line="202"/>
        <source> — %1</source>
        <translation> — %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="213"/>
        <source>[run] %1 after %2 of %3 epoch(s)</source>
        <translation>[运行] %1，%3 轮中已训练 %2 轮</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="217"/>
        <source>: %1</source>
        <translation>：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="224"/>
        <source>[run] the whole run: %1</source>
        <translation>[运行] 整个运行：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="233"/>
        <source>[doctor] %1</source>
        <translation>[诊断] %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="236"/>
        <source> — try %1</source>
        <translation> — 请尝试 %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_events.cpp" line="243"/>
        <source>[rank 0] checkpoint %1: %2</source>
        <translation>[进程 0] 检查点 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="386"/>
        <source>more findings: %1 (Details)</source>
        <translation>另有 %1 条诊断结果（见详情）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page_charts.cpp" line="36"/>
        <source>Step time per rank — %1</source>
        <translation>各进程的步时间 — %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="418"/>
        <source>No run yet: press Start (F5).</source>
        <translation>还没有运行：按“开始 (F5)”。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="419"/>
        <source>Open a project to train.</source>
        <translation>打开项目以开始训练。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="422"/>
        <source>&lt;b&gt;%1&lt;/b&gt;</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="427"/>
        <source> · epoch %1/%2</source>
        <translation> · 第 %1/%2 轮</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="429"/>
        <source> · %1 of %2 epoch(s) done</source>
        <translation> · 已完成 %1/%2 轮</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="431"/>
        <source> · iteration %1/%2</source>
        <translation> · 迭代 %1/%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="432"/>
        <source> · %1 samples/s</source>
        <translation> · %1 样本/秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="436"/>
        <source> · ETA %1 (training steps)</source>
        <translation> · 预计剩余 %1（训练步）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="446"/>
        <source> · %1</source>
        <translation> · %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="447"/>
        <source>Outcome: %1</source>
        <translation>结果：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="487"/>
        <source>[studio] last lines of %1:</source>
        <translation>[工作室] %1 的最后几行：</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="496"/>
        <source>[run] %1</source>
        <translation>[运行] %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="515"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>stave::studio::RunQueue</name>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="78"/>
        <source>queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="80"/>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="82"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="84"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="86"/>
        <source>finished</source>
        <translation>已结束</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="88"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="90"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="124"/>
        <source>%1 × %2 — %3</source>
        <translation>%1 × %2 — %3</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="130"/>
        <source>queued %1</source>
        <translation>排队于 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="159"/>
        <source>Open a project first.</source>
        <translation>请先打开项目。</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="163"/>
        <source>no config named %1</source>
        <translation>没有名为 %1 的配置</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="233"/>
        <source>GPU %1 is used by %2</source>
        <translation>GPU %1 正被 %2 使用</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="236"/>
        <source>GPU %1 has %2% of its memory in use</source>
        <translation>GPU %1 的显存已用 %2%</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="255"/>
        <source>Cannot read the GPUs and leases: %1</source>
        <translation>无法读取 GPU 与占用信息：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="265"/>
        <source>%1/%2 GPUs free</source>
        <translation>%1/%2 个 GPU 空闲</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="267"/>
        <source>CPU free</source>
        <translation>CPU 空闲</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="267"/>
        <source>CPU busy (%1)</source>
        <translation>CPU 繁忙（%1）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="304"/>
        <source>its run folder %1 is gone (was the project moved or the run deleted?)</source>
        <translation>其运行文件夹 %1 已不存在（项目是否被移动或运行被删除？）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="306"/>
        <source>Queued run %1: %2</source>
        <translation>排队的运行 %1：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="327"/>
        <source>the run never started (nothing in %1)</source>
        <translation>运行从未启动（%1 中没有内容）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="332"/>
        <source>Queued run %1 ended: %2</source>
        <translation>排队的运行 %1 已结束：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="358"/>
        <source>the project has no config named %1</source>
        <translation>项目中没有名为 %1 的配置</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="373"/>
        <source>devices=%1: there is no GPU %2</source>
        <translation>devices=%1：没有 GPU %2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="385"/>
        <source>needs %1 free GPUs, %2 free (%3)</source>
        <translation>需要 %1 个空闲 GPU，目前空闲 %2 个（%3）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="530"/>
        <source>Cannot save the queue: %1</source>
        <translation>无法保存队列：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="541"/>
        <source>Cannot read the queue %1: %2; the queue starts empty and the file is replaced at the next change</source>
        <translation>无法读取队列 %1：%2；队列从空开始，下次修改时将替换该文件</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="550"/>
        <source>%1 is not a Stave queue file (%2); the queue starts empty and the file is replaced at the next change</source>
        <translation>%1 不是 Stave 队列文件（%2）；队列从空开始，下次修改时将替换该文件</translation>
    </message>
    <message>
        <location filename="../core/studio/run/run_queue.cpp" line="553"/>
        <source>unexpected content</source>
        <translation>内容不符合预期</translation>
    </message>
</context>
<context>
    <name>stave::widgets::SettingsDialog</name>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="19"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="28"/>
        <source>General</source>
        <translation>常规</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="30"/>
        <source>Clusters</source>
        <translation>集群</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="32"/>
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="37"/>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="39"/>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="40"/>
        <source>A new language takes effect when the studio starts again.</source>
        <translation>新语言在工作室重新启动后生效。</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="45"/>
        <source>Runs started from the studio</source>
        <translation>从工作室启动的运行</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="52"/>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="53"/>
        <location filename="../widgets/settings_dialog.cpp" line="59"/>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="55"/>
        <source>GPU sampling interval:</source>
        <translation>GPU 采样间隔：</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="61"/>
        <source>Prometheus metrics port:</source>
        <translation>Prometheus 指标端口：</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="64"/>
        <source>all visible GPUs (or the CPU)</source>
        <translation>所有可见 GPU（或 CPU）</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="65"/>
        <source>Default devices:</source>
        <translation>默认设备：</translation>
    </message>
    <message>
        <location filename="../widgets/settings_dialog.cpp" line="66"/>
        <source>These apply to a run when its config leaves the key (sample_period_s, metrics_port, devices) at its default; a value set in the project&apos;s config wins. Devices: cpu, or GPU indices such as 0,1.</source>
        <translation>当运行的配置将对应键（sample_period_s、metrics_port、devices）保留为默认值时，这些设置生效；项目配置中设定的值优先。设备：cpu，或 GPU 编号如 0,1。</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ShortcutsDialog</name>
    <message>
        <location filename="../widgets/help_dialogs.cpp" line="147"/>
        <source>Keyboard Shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../widgets/help_dialogs.cpp" line="153"/>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <location filename="../widgets/help_dialogs.cpp" line="153"/>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
</context>
<context>
    <name>stave::widgets::StartPage</name>
    <message>
        <location filename="../widgets/start_page.cpp" line="30"/>
        <source>&lt;h1&gt;Stave&lt;/h1&gt;&lt;p&gt;Train YOLO detectors fast, and see why a run is slow.&lt;/p&gt;</source>
        <translation>&lt;h1&gt;Stave&lt;/h1&gt;&lt;p&gt;快速训练 YOLO 检测器，并看清运行为何变慢。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="37"/>
        <source>New project…</source>
        <translation>新建项目…</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="39"/>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="42"/>
        <source>Open the demo project</source>
        <translation>打开演示项目</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="45"/>
        <source>A small synthetic 5-class dataset with settings that train in minutes on a CPU; made on first use.</source>
        <translation>一个小型合成 5 类数据集，其设置可在 CPU 上几分钟内训练完；首次使用时生成。</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="53"/>
        <source>&lt;b&gt;Recent projects&lt;/b&gt;</source>
        <translation>&lt;b&gt;最近的项目&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="72"/>
        <source>%1 no longer exists.</source>
        <translation>%1 已不存在。</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="80"/>
        <source>Remove from the list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="87"/>
        <source>Demo: %1…</source>
        <translation>演示：%1…</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="90"/>
        <source>The demo project could not be made: %1</source>
        <translation>无法生成演示项目：%1</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="139"/>
        <source>reading…</source>
        <translation>读取中…</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="141"/>
        <source>%1 — %2
not found</source>
        <translation>%1 — %2
未找到</translation>
    </message>
    <message>
        <location filename="../widgets/start_page.cpp" line="115"/>
        <source>No recent projects: make one, or open the demo.</source>
        <translation>没有最近的项目：新建一个，或打开演示项目。</translation>
    </message>
</context>
<context>
    <name>stave::studio::ThumbnailLoader</name>
    <message>
        <location filename="../core/studio/models/thumbnail_loader.cpp" line="182"/>
        <source>cannot read the image</source>
        <translation>无法读取图像</translation>
    </message>
    <message>
        <location filename="../core/studio/models/thumbnail_loader.cpp" line="192"/>
        <source>the image has no pixels</source>
        <translation>图像没有像素</translation>
    </message>
    <message>
        <location filename="../core/studio/models/thumbnail_loader.cpp" line="201"/>
        <source>cannot decode the image</source>
        <translation>无法解码图像</translation>
    </message>
</context>
<context>
    <name>stave::studio::TopologyModel</name>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="436"/>
        <source>GPU %1: %2</source>
        <translation>GPU %1：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="438"/>
        <source>GPU %1 ↔ GPU %2: %3 — %4</source>
        <translation>GPU %1 ↔ GPU %2：%3 — %4</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="443"/>
        <source>PCIe path without NVLink: %1</source>
        <translation>不经 NVLink 的 PCIe 路径：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="444"/>
        <source>P2P read: %1</source>
        <translation>P2P 读取：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="446"/>
        <source>nccl_p2p_level that covers this pair: %1</source>
        <translation>覆盖这对 GPU 的 nccl_p2p_level：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="460"/>
        <source>CPU Affinity</source>
        <translation>CPU 亲和性</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="460"/>
        <source>NUMA Affinity</source>
        <translation>NUMA 亲和性</translation>
    </message>
</context>
<context>
    <name>stave::studio::TopologyText</name>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="30"/>
        <source>the GPU itself</source>
        <translation>GPU 自身</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="32"/>
        <source>joined by NVLink (the number says how many links are bonded). NCCL uses NVLink directly for P2P and all-reduce: the fastest path, nothing to set.</source>
        <translation>由 NVLink 相连（数字表示绑定的链路数）。NCCL 直接用 NVLink 做 P2P 和 all-reduce：最快的路径，无需设置。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="35"/>
        <source>at most one PCIe bridge apart (one PCIe switch). P2P over PCIe works; NCCL uses it by default.</source>
        <translation>最多相隔一个 PCIe 桥（同一 PCIe 交换芯片）。PCIe 上的 P2P 可用；NCCL 默认使用。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="38"/>
        <source>several PCIe bridges apart, without the host bridge. P2P over the PCIe switches works; NCCL uses it by default.</source>
        <translation>相隔多个 PCIe 桥，但不经过主桥。经 PCIe 交换芯片的 P2P 可用；NCCL 默认使用。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="41"/>
        <source>through a PCIe host bridge, i.e. the CPU. Traffic passes the CPU; NCCL usually keeps P2P off here and copies through host memory (nccl_p2p_level=PHB allows P2P).</source>
        <translation>经过 PCIe 主桥，即 CPU。数据要经过 CPU；NCCL 通常在此关闭 P2P，经主机内存中转（nccl_p2p_level=PHB 可允许 P2P）。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="45"/>
        <source>across PCIe host bridges within one NUMA node: through the CPU like PHB, P2P is often disabled (nccl_p2p_level=PHB allows it).</source>
        <translation>在同一 NUMA 节点内跨越多个 PCIe 主桥：与 PHB 一样经过 CPU，P2P 常被禁用（nccl_p2p_level=PHB 可允许）。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="48"/>
        <source>across the interconnect between CPU sockets (QPI/UPI): the slowest path. NCCL copies through host memory (nccl_p2p_level=SYS forces P2P, rarely faster).</source>
        <translation>跨越 CPU 插槽之间的互连（QPI/UPI）：最慢的路径。NCCL 经主机内存中转（nccl_p2p_level=SYS 强制 P2P，很少更快）。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="53"/>
        <source>the driver could not tell how these GPUs connect.</source>
        <translation>驱动无法给出这些 GPU 的连接方式。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="59"/>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="61"/>
        <source>not supported by the chipset</source>
        <translation>芯片组不支持</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="63"/>
        <source>not supported by the GPU</source>
        <translation>GPU 不支持</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="65"/>
        <source>not supported by the topology</source>
        <translation>拓扑不支持</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="67"/>
        <source>disabled by a driver registry key</source>
        <translation>被驱动注册表项禁用</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="69"/>
        <source>not supported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="73"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="86"/>
        <source>One GPU: no GPU-to-GPU traffic on this node, so nccl_p2p_level does not matter here.</source>
        <translation>只有一块 GPU：本节点没有 GPU 之间的通信，nccl_p2p_level 在这里无关紧要。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="91"/>
        <source>The driver could not tell how some GPUs connect: leave nccl_p2p_level empty (NCCL&apos;s choice).</source>
        <translation>驱动无法给出部分 GPU 的连接方式：nccl_p2p_level 请留空（由 NCCL 决定）。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="94"/>
        <source>The slowest pair connects by %1: NCCL&apos;s default already uses P2P between every pair. Leave nccl_p2p_level empty (%2 would do the same here).</source>
        <translation>最慢的一对 GPU 经 %1 相连：NCCL 默认已在每对 GPU 之间使用 P2P。nccl_p2p_level 请留空（在这里设为 %2 效果相同）。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="100"/>
        <source>Some pairs connect only by %1: NCCL usually copies through host memory for them. nccl_p2p_level=%2 lets it use P2P between every pair; compare the all-reduce wait of a run with and without it and keep it only if it helps.</source>
        <translation>部分 GPU 之间只经 %1 相连：NCCL 通常经主机内存中转。nccl_p2p_level=%2 可让每对 GPU 都使用 P2P；请比较设置前后运行的 all-reduce 等待时间，确实有帮助再保留。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="111"/>
        <source>The driver reports P2P reads between GPU %1 and GPU %2 as %3: no P2P there, whatever nccl_p2p_level says.</source>
        <translation>驱动报告 GPU %1 与 GPU %2 之间的 P2P 读取为“%3”：无论 nccl_p2p_level 如何设置，这里都没有 P2P。</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="124"/>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <location filename="../core/studio/hardware/hardware_models.cpp" line="125"/>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ValidationView</name>
    <message>
        <location filename="../widgets/validation_view.cpp" line="110"/>
        <source>Normalised (each true class sums to 1)</source>
        <translation>归一化（每个真实类别之和为 1）</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="118"/>
        <source>Click a cell to see its images</source>
        <translation>点击单元格查看其图像</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="132"/>
        <location filename="../widgets/validation_view.cpp" line="241"/>
        <source>Click a cell of the matrix, then an image</source>
        <translation>先点击矩阵中的单元格，再选择一张图像</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="136"/>
        <source>Labels dashed, predictions solid with their confidence; the boxes of the cell&apos;s classes in red.</source>
        <translation>标注为虚线，预测为实线并附置信度；该单元格所涉类别的框以红色显示。</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="155"/>
        <source>Confusion matrix</source>
        <translation>混淆矩阵</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="167"/>
        <source>Precision–recall (IoU 0.5)</source>
        <translation>精确率–召回率（IoU 0.5）</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="168"/>
        <source>F1 over confidence</source>
        <translation>F1–置信度</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="169"/>
        <source>Precision over confidence</source>
        <translation>精确率–置信度</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="170"/>
        <source>Recall over confidence</source>
        <translation>召回率–置信度</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="174"/>
        <source>Curve</source>
        <translation>曲线</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="176"/>
        <source>Classes</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="188"/>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="200"/>
        <source>Gallery</source>
        <translation>图库</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="210"/>
        <source>Per class</source>
        <translation>各类别</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="101"/>
        <location filename="../widgets/validation_view.cpp" line="331"/>
        <source>No validation yet</source>
        <translation>尚未验证</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="141"/>
        <location filename="../widgets/validation_view.cpp" line="617"/>
        <source>Edit labels…</source>
        <translation>编辑标注…</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="144"/>
        <source>Fix this image&apos;s labels in the label editor, with the predictions to accept (or double-click an image in the list)</source>
        <translation>在标注编辑器中修正此图像的标注，可采纳预测（或在列表中双击一张图像）</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="219"/>
        <source>background</source>
        <translation>背景</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="255"/>
        <source>No run chosen</source>
        <translation>未选择运行</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="256"/>
        <source>Reading the validation views…</source>
        <translation>正在读取验证视图…</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="279"/>
        <source>The validation views could not be read: %1</source>
        <translation>无法读取验证视图：%1</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="290"/>
        <source>no validation views yet (they are written after each validation; runs from before this version have none)</source>
        <translation>尚无验证视图（每次验证后写入；此版本之前的运行没有）</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="293"/>
        <source>partly read: %1</source>
        <translation>部分读取：%1</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="295"/>
        <source>%1 classes; matrix at confidence %2 and IoU %3; in %4</source>
        <translation>%1 个类别；矩阵的置信度阈值 %2、IoU %3；位于 %4</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="306"/>
        <source>All classes</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="331"/>
        <source>No confusion matrix</source>
        <translation>没有混淆矩阵</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="351"/>
        <source>image %1</source>
        <translation>图像 %1</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="355"/>
        <source>%1
%2 labels, %3 predictions</source>
        <translation>%1
%2 个标注，%3 个预测</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="362"/>
        <source>predicted %1, true %2</source>
        <translation>预测 %1，真实 %2</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="364"/>
        <source>No images kept for %1 (%2 boxes)</source>
        <translation>未保留 %1 的图像（%2 个框）</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="365"/>
        <source>%1: %2 boxes in these %3 images (up to 12 are kept); choose one</source>
        <translation>%1：%2 个框，位于这 %3 张图像中（最多保留 12 张）；请选择一张</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="421"/>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="431"/>
        <source>Cannot read %1 (moved or deleted?)</source>
        <translation>无法读取 %1（已移动或删除？）</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="442"/>
        <location filename="../widgets/validation_view.cpp" line="446"/>
        <source>recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="442"/>
        <source>confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="443"/>
        <location filename="../widgets/validation_view.cpp" line="445"/>
        <source>precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="444"/>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="512"/>
        <source>all classes %1 mAP50</source>
        <translation>所有类别 %1 mAP50</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="516"/>
        <source>all classes %1 at %2</source>
        <translation>所有类别 %1，置信度 %2</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="525"/>
        <source>best F1 %1 at confidence %2</source>
        <translation>最佳 F1 %1，置信度 %2</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="532"/>
        <source>all classes</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="541"/>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="541"/>
        <source>Images</source>
        <translation>图像</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="541"/>
        <source>Instances</source>
        <translation>实例</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="542"/>
        <source>P</source>
        <translation>P</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="542"/>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="542"/>
        <source>mAP50</source>
        <translation>mAP50</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="542"/>
        <source>mAP50-95</source>
        <translation>mAP50-95</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="546"/>
        <source>Δ mAP50-95</source>
        <translation>Δ mAP50-95</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="592"/>
        <source>Labels</source>
        <translation>标注</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="593"/>
        <location filename="../widgets/validation_view.cpp" line="594"/>
        <source>Predictions: %1</source>
        <translation>预测：%1</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="593"/>
        <source>Predictions</source>
        <translation>预测</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="596"/>
        <source>No gallery images</source>
        <translation>没有图库图像</translation>
    </message>
    <message>
        <location filename="../widgets/validation_view.cpp" line="611"/>
        <source>(not available)</source>
        <translation>（不可用）</translation>
    </message>
</context>
<context>
    <name>stave::studio::WeightsFetch</name>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="106"/>
        <source>Asking the cluster for this run&apos;s checkpoints…</source>
        <translation>正在向集群询问该运行的检查点…</translation>
    </message>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="109"/>
        <source>Fetching %1 from %2…</source>
        <translation>正在从 %2 取回 %1…</translation>
    </message>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="110"/>
        <source>Fetching %1 from %2: %3% (%4 of %5)…</source>
        <translation>正在从 %2 取回 %1：%3%（%4 / %5）…</translation>
    </message>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="159"/>
        <source>%1 is not a run on a cluster behind SSH: its checkpoints are written into its own folder</source>
        <translation>%1 不是通过 SSH 访问的集群上的运行：它的检查点直接写在自己的文件夹中</translation>
    </message>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="170"/>
        <source>The cluster profile &apos;%1&apos; of this run is not in Settings ▸ Clusters with a destination: its checkpoints cannot be fetched</source>
        <translation>该运行的集群配置“%1”不在“设置 ▸ 集群”中或没有 SSH 目标：无法取回它的检查点</translation>
    </message>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="194"/>
        <location filename="../core/studio/run/weights_fetch.cpp" line="223"/>
        <source>Stopped: %1 was not fetched</source>
        <translation>已停止：未取回 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="199"/>
        <location filename="../core/studio/run/weights_fetch.cpp" line="227"/>
        <source>Cannot fetch %1: %2</source>
        <translation>无法取回 %1：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="207"/>
        <source>Cannot fetch %1: it is not on the cluster (%2)</source>
        <translation>无法取回 %1：集群上没有该文件（%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/weights_fetch.cpp" line="234"/>
        <source>The cluster has no checkpoint of this run yet (none of %1)</source>
        <translation>集群上还没有该运行的检查点（%1 均不存在）</translation>
    </message>
</context>
<context>
    <name>stave::config::Schema</name>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="10"/>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="11"/>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="12"/>
        <source>optimisation</source>
        <translation>优化</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="13"/>
        <source>augmentation</source>
        <translation>数据增强</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="14"/>
        <source>hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="15"/>
        <source>distributed</source>
        <translation>分布式</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="16"/>
        <source>logging</source>
        <translation>日志</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="17"/>
        <source>network, yolov8n/yolo11n (smallest) to yolov8x/yolo11x; a &apos;.yaml&apos; suffix is accepted, and a checkpoint (.pt, Stave&apos;s or Ultralytics&apos;) gives architecture and weights</source>
        <translation>网络，yolov8n/yolo11n（最小）到 yolov8x/yolo11x；可带 “.yaml” 后缀；检查点（.pt，Stave 或 Ultralytics 的）同时提供结构和权重</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="18"/>
        <source>checkpoint (.pt, Stave&apos;s or Ultralytics&apos;) to start from (tensors matching by name and shape); empty = random weights, or those of a model=.pt</source>
        <translation>作为起点的检查点（.pt，Stave 或 Ultralytics 的；按名称和形状匹配的张量）；空 = 随机权重，或 model=.pt 的权重</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="19"/>
        <source>freeze the first N layers of the network (0 = none; yolov8 has 22, yolo11 23 before the head)</source>
        <translation>冻结网络的前 N 层（0 = 不冻结；检测头之前 yolov8 有 22 层，yolo11 有 23 层）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="20"/>
        <source>dataset description (data.yaml, YOLO format)</source>
        <translation>数据集描述（data.yaml，YOLO 格式）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="21"/>
        <source>training and validation image size in pixels</source>
        <translation>训练和验证的图像尺寸（像素）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="22"/>
        <source>fraction of the training images to use</source>
        <translation>使用的训练图像比例</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="23"/>
        <source>train all classes as one class</source>
        <translation>将所有类别作为一个类别训练</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="24"/>
        <source>cache decoded images in RAM or on disk</source>
        <translation>将解码后的图像缓存在内存或磁盘中</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="25"/>
        <source>fail the run when more than this fraction of a split&apos;s images cannot be decoded (each one is used as a grey image without boxes, with a warning)</source>
        <translation>某个划分中无法解码的图像比例超过此值时，运行失败（每张无法解码的图像都以无框的灰色图像代替，并给出警告）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="26"/>
        <source>validate in rectangular batches, as Ultralytics does (false: letterbox to squares)</source>
        <translation>按矩形批次验证，与 Ultralytics 相同（false：letterbox 填充为正方形）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="27"/>
        <source>data loader threads per rank (at most the CPU cores per rank, as Ultralytics caps it)</source>
        <translation>每个进程的数据加载线程数（最多为每个进程的 CPU 核心数，与 Ultralytics 的上限相同）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="28"/>
        <source>batches prepared ahead per rank</source>
        <translation>每个进程预先准备的批次数</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="29"/>
        <source>keep loader threads alive between epochs</source>
        <translation>在轮次之间保持加载线程存活</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="30"/>
        <source>number of epochs to train</source>
        <translation>训练轮数</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="31"/>
        <source>maximum training time in hours, overrides epochs (0 = off)</source>
        <translation>最长训练时间（小时），优先于 epochs（0 = 关闭）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="32"/>
        <source>epochs without improvement before stopping early (0 = never)</source>
        <translation>无改进多少轮后提前停止（0 = 从不）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="33"/>
        <source>images per batch PER RANK (global batch = batch x world size)</source>
        <translation>每个进程每批的图像数（注意是按进程计；全局批量 = batch x 进程数）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="34"/>
        <source>nominal batch size: gradients are accumulated up to it</source>
        <translation>名义批量：梯度累积到该批量后再更新</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="35"/>
        <source>optimizer; auto picks SGD or AdamW (and lr0) from the run length</source>
        <translation>优化器；auto 按训练长度选择 SGD 或 AdamW（及 lr0）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="36"/>
        <source>initial learning rate</source>
        <translation>初始学习率</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="37"/>
        <source>final learning rate as a fraction of lr0</source>
        <translation>最终学习率，为 lr0 的比例</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="38"/>
        <source>SGD momentum / Adam beta1</source>
        <translation>SGD 动量 / Adam beta1</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="39"/>
        <source>weight decay at the nominal batch size</source>
        <translation>名义批量下的权重衰减</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="40"/>
        <source>warmup length in epochs (fractions allowed)</source>
        <translation>预热长度（轮，可为小数）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="41"/>
        <source>momentum at the start of warmup</source>
        <translation>预热开始时的动量</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="42"/>
        <source>bias learning rate at the start of warmup</source>
        <translation>预热开始时的偏置学习率</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="43"/>
        <source>cosine learning-rate schedule instead of linear</source>
        <translation>使用余弦学习率调度而非线性调度</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="44"/>
        <source>scale lr0 by global batch / 64 (linear scaling rule)</source>
        <translation>按 全局批量 / 64 缩放 lr0（线性缩放规则）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="45"/>
        <source>box (CIoU) loss gain</source>
        <translation>框（CIoU）损失增益</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="46"/>
        <source>classification (BCE) loss gain</source>
        <translation>分类（BCE）损失增益</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="47"/>
        <source>distribution focal loss gain</source>
        <translation>分布焦点损失（DFL）增益</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="48"/>
        <source>random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="49"/>
        <source>use deterministic algorithms where possible</source>
        <translation>尽可能使用确定性算法</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="50"/>
        <source>resume from the run&apos;s last checkpoint</source>
        <translation>从该运行的最后一个检查点继续</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="51"/>
        <source>hue jitter (fraction)</source>
        <translation>色调抖动（比例）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="52"/>
        <source>saturation jitter (fraction)</source>
        <translation>饱和度抖动（比例）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="53"/>
        <source>value (brightness) jitter (fraction)</source>
        <translation>明度（亮度）抖动（比例）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="54"/>
        <source>rotation (+/- degrees)</source>
        <translation>旋转（+/- 度）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="55"/>
        <source>translation (+/- fraction)</source>
        <translation>平移（+/- 比例）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="56"/>
        <source>scale gain (+/- fraction; augmentation, not the model scale)</source>
        <translation>缩放增益（+/- 比例；指数据增强，而非模型规模）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="57"/>
        <source>shear (+/- degrees)</source>
        <translation>剪切（+/- 度）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="58"/>
        <source>perspective (+/- fraction)</source>
        <translation>透视（+/- 比例）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="59"/>
        <source>probability of an up-down flip</source>
        <translation>上下翻转的概率</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="60"/>
        <source>probability of a left-right flip</source>
        <translation>左右翻转的概率</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="61"/>
        <source>probability of a 4-image mosaic</source>
        <translation>4 图马赛克的概率</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="62"/>
        <source>probability of mixup</source>
        <translation>mixup 的概率</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="63"/>
        <source>turn mosaic off for the last N epochs (0 = never)</source>
        <translation>在最后 N 轮关闭马赛克（0 = 不关闭）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="64"/>
        <source>vary the image size +/- 50% per batch</source>
        <translation>每批将图像尺寸随机变化 +/- 50%</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="65"/>
        <source>GPUs to use: empty = all visible, &apos;cpu&apos;, or a list such as &apos;0,1,3&apos;</source>
        <translation>使用的 GPU：留空 = 所有可见 GPU，&apos;cpu&apos;，或列表如 &apos;0,1,3&apos;</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="66"/>
        <source>processes (ranks) per node, one per GPU</source>
        <translation>每个节点的进程（rank）数，每块 GPU 一个</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="67"/>
        <source>compute precision with amp; auto = bf16 on GPUs from Ampere on, fp16 on older GPUs, fp32 on the CPU (bf16 there is faster but learns less)</source>
        <translation>启用 amp 时的计算精度；auto = Ampere 及更新的 GPU 用 bf16，更早的 GPU 用 fp16，CPU 上用 fp32（CPU 上 bf16 更快但学习效果较差）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="68"/>
        <source>automatic mixed precision</source>
        <translation>自动混合精度</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="69"/>
        <source>channels-last (NHWC) memory format for images and model; auto = on for the CPU, off on CUDA</source>
        <translation>图像和模型使用 channels-last（NHWC）内存格式；auto = CPU 上开启，CUDA 上关闭</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="70"/>
        <source>collate batches into pinned host memory</source>
        <translation>将批次整理到锁页（pinned）主机内存中</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="71"/>
        <source>intra-op CPU threads per rank (0 = all cores)</source>
        <translation>每个进程的算子内（intra-op）CPU 线程数（0 = 所有核心）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="72"/>
        <source>SyncBatchNorm: BatchNorm over the global batch of all ranks while training</source>
        <translation>SyncBatchNorm：训练时在所有进程的全局批次上做 BatchNorm</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="73"/>
        <source>gradient bucket size for all-reduce, MiB (PyTorch DDP&apos;s bucket_cap_mb)</source>
        <translation>all-reduce 的梯度桶大小，MiB（即 PyTorch DDP 的 bucket_cap_mb）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="74"/>
        <source>NCCL_P2P_LEVEL (empty = NCCL&apos;s choice)</source>
        <translation>NCCL_P2P_LEVEL（留空 = 由 NCCL 决定）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="75"/>
        <source>set NCCL_SHM_DISABLE=1</source>
        <translation>设置 NCCL_SHM_DISABLE=1</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="76"/>
        <source>NCCL_DEBUG level (empty = off)</source>
        <translation>NCCL_DEBUG 级别（留空 = 关闭）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="77"/>
        <source>collective timeout; a rank silent this long counts as hung</source>
        <translation>集合通信超时；进程沉默这么久即视为挂起</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="78"/>
        <source>address of rank 0&apos;s rendezvous store</source>
        <translation>进程 0 的 rendezvous 存储地址</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="79"/>
        <source>rendezvous port (0 = pick a free one)</source>
        <translation>rendezvous 端口（0 = 自动选一个空闲端口）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="80"/>
        <source>network interface the ranks talk over (GLOO_SOCKET_IFNAME, NCCL_SOCKET_IFNAME; e.g. eth0 or ^docker); empty = the one that routes to master_addr</source>
        <translation>进程之间通信所用的网络接口（GLOO_SOCKET_IFNAME、NCCL_SOCKET_IFNAME；如 eth0 或 ^docker）；空 = 通往 master_addr 的路由所在接口</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="81"/>
        <source>number of nodes (machines)</source>
        <translation>节点（机器）数</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="82"/>
        <source>this node&apos;s index, 0 .. nnodes-1</source>
        <translation>本节点的序号，0 .. nnodes-1</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="83"/>
        <source>validate during training</source>
        <translation>训练期间进行验证</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="84"/>
        <source>validate every N epochs</source>
        <translation>每 N 轮验证一次</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="85"/>
        <source>confidence threshold for validation NMS</source>
        <translation>验证时 NMS 的置信度阈值</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="86"/>
        <source>IoU threshold for validation NMS</source>
        <translation>验证时 NMS 的 IoU 阈值</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="87"/>
        <source>maximum detections per image</source>
        <translation>每张图像的最大检测数</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="88"/>
        <source>save a checkpoint every N epochs (-1 = only last and best)</source>
        <translation>每 N 轮保存一个检查点（-1 = 只保存 last 和 best）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="89"/>
        <source>run name, one folder name under project (empty = train); taken names get 2, 3, ...</source>
        <translation>运行名称，即 project 下的一个文件夹名（留空 = train）；已被占用的名称会依次加上 2、3、...</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="90"/>
        <source>reuse the run folder of name (or --run-dir) even if it holds a run: the old run is moved aside to &lt;folder&gt;-replaced-&lt;time&gt; first</source>
        <translation>即使 name（或 --run-dir）对应的运行文件夹中已有运行，也重复使用它：旧运行会先移到 &lt;folder&gt;-replaced-&lt;time&gt;</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="91"/>
        <source>folder for runs (empty = beside the project file)</source>
        <translation>存放运行的文件夹（留空 = 项目文件旁边）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="92"/>
        <source>seconds between the node&apos;s GPU and system samples in the event log (0 = off)</source>
        <translation>事件日志中本节点 GPU 与系统采样的间隔秒数（0 = 关闭）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="93"/>
        <source>seconds between the straggler and doctor reports (diagnosis events) of a run; 0 = only the doctor&apos;s final report</source>
        <translation>运行的拖后腿报告与诊断报告（诊断事件）的间隔秒数；0 = 只输出诊断的最终报告</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="94"/>
        <source>serve Prometheus metrics of the run on this port (0 = off); a port in use stops the run before it starts</source>
        <translation>在此端口提供运行的 Prometheus 指标（0 = 关闭）；端口被占用时运行会在开始前停止</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="95"/>
        <source>address the metrics port listens on (0.0.0.0 = every interface)</source>
        <translation>指标端口监听的地址（0.0.0.0 = 所有网络接口）</translation>
    </message>
    <message>
        <location filename="../core/studio/schema_strings.cpp" line="96"/>
        <source>also write TensorBoard event files (losses, metrics, lr, samples/s, GPU samples) to &lt;run&gt;/tb/, for tensorboard --logdir</source>
        <translation>同时将 TensorBoard 事件文件（损失、指标、lr、样本/秒、GPU 采样）写入 &lt;run&gt;/tb/，供 tensorboard --logdir 使用</translation>
    </message>
</context>
<context>
    <name>stave::engine</name>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="10"/>
        <source>rank {rank}</source>
        <translation>rank {rank}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="11"/>
        <source>rank {rank} on node {node}</source>
        <translation>节点 {node} 上的 rank {rank}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="12"/>
        <source>GPU {index}</source>
        <translation>GPU {index}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="13"/>
        <source>node {node} GPU {index}</source>
        <translation>节点 {node} 的 GPU {index}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="14"/>
        <source>node {node}</source>
        <translation>节点 {node}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="15"/>
        <source>node {node} ({host})</source>
        <translation>节点 {node}（{host}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="16"/>
        <source>CPU {percent} busy</source>
        <translation>CPU 占用 {percent}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="17"/>
        <source>CPU load unknown</source>
        <translation>CPU 负载未知</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="18"/>
        <source>CPU {percent} busy on {node}, the busiest node</source>
        <translation>最忙的节点 {node} 上 CPU 占用 {percent}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="19"/>
        <source>; the fullest is {gpu}</source>
        <translation>；最满的是 {gpu}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="20"/>
        <source>; the least busy is {gpu}, at {percent}</source>
        <translation>；最空闲的是 {gpu}，为 {percent}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="21"/>
        <source>data-bound</source>
        <translation>数据受限</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="22"/>
        <source>input-copy-bound</source>
        <translation>输入拷贝受限</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="23"/>
        <source>communication-bound</source>
        <translation>通信受限</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="24"/>
        <source>straggler</source>
        <translation>掉队者</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="25"/>
        <source>near out of memory</source>
        <translation>显存将满</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="26"/>
        <source>memory headroom</source>
        <translation>显存有余量</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="27"/>
        <source>GPU under-used</source>
        <translation>GPU 未充分利用</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="28"/>
        <source>ranks wait for data {share} of their step ({cpu}, workers={workers}, cache={cache})</source>
        <translation>各 rank 在每步中有 {share} 的时间等待数据（{cpu}，workers={workers}，cache={cache}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="29"/>
        <source>; the CPU has idle cores: give each rank as many loader threads as it has cores</source>
        <translation>；CPU 有空闲核心：为每个 rank 配置与其核心数相同的加载线程</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="30"/>
        <source>; cache decoded images in RAM so that later epochs skip decoding (cache=disk when the set does not fit)</source>
        <translation>；把解码后的图像缓存在内存中，之后的轮次即可跳过解码（数据集放不下时用 cache=disk）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="31"/>
        <source>, and cache decoded images in RAM so that later epochs skip decoding (cache=disk when the set does not fit)</source>
        <translation>，并把解码后的图像缓存在内存中，之后的轮次即可跳过解码（数据集放不下时用 cache=disk）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="32"/>
        <source>; the loader already caches and uses every core: it needs more CPU per GPU (fewer ranks per node, or cheaper augmentation such as mosaic=0 near the end)</source>
        <translation>；加载器已在缓存并用满所有核心：每块 GPU 需要更多 CPU（每个节点更少的 rank，或更省的数据增强，例如在训练末段设 mosaic=0）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="33"/>
        <source>ranks spend {share} of their step copying the batch to the GPU</source>
        <translation>各 rank 在每步中有 {share} 的时间用于把批次拷贝到 GPU</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="34"/>
        <source>; pinned host memory lets the copy run at full PCIe speed</source>
        <translation>；锁页主机内存可让拷贝以 PCIe 全速进行</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="35"/>
        <source> although it is pinned: check the GPUs&apos; PCIe generation and width on the Hardware page (a x4 or gen-3 link halves the copy rate)</source>
        <translation>，尽管内存已锁页：请在“硬件”页检查 GPU 的 PCIe 代数和通道宽度（x4 或第 3 代链路会使拷贝速率减半）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="36"/>
        <source>ranks wait in the gradient all-reduce {share} of their step while no rank lags (bucket_mb={bucket_mb})</source>
        <translation>各 rank 在每步中有 {share} 的时间等待梯度 all-reduce，而没有 rank 掉队（bucket_mb={bucket_mb}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="37"/>
        <source>; tiny buckets mean many small all-reduces, each paying the link&apos;s latency</source>
        <translation>；桶太小意味着许多小的 all-reduce，每次都要承担链路延迟</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="38"/>
        <source>; accumulating over more batches all-reduces less often (nbs is the nominal batch: lr and weight decay follow it)</source>
        <translation>；在更多批次上累积梯度可减少 all-reduce 次数（nbs 是名义批大小：学习率和权重衰减随之调整）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="39"/>
        <source>. Check the GPU topology on the Hardware page: without NVLink or PCIe P2P NCCL goes through host memory (nccl_p2p_level)</source>
        <translation>。请在“硬件”页检查 GPU 拓扑：没有 NVLink 或 PCIe P2P 时，NCCL 需经主机内存中转（nccl_p2p_level）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="40"/>
        <source>{rank} is {share} of a step slower than the others, who wait for it in the all-reduce: {detail}</source>
        <translation>{rank} 比其他 rank 慢一步的 {share}，其他 rank 在 all-reduce 中等待它：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="41"/>
        <source>. Its loader is slower: a slower or shared disk, fewer free cores on its node, or another job on them</source>
        <translation>。它的加载器较慢：磁盘较慢或被共享、其节点上空闲核心较少，或有其他作业占用</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="42"/>
        <source>. Its input copy is slower: check that GPU&apos;s PCIe link on the Hardware page</source>
        <translation>。它的输入拷贝较慢：请在“硬件”页检查该 GPU 的 PCIe 链路</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="43"/>
        <source>. It computes slower: compare that GPU&apos;s clocks, temperature and power with the others on the Hardware page (throttling, another process on it)</source>
        <translation>。它计算较慢：请在“硬件”页把该 GPU 的频率、温度和功耗与其他 GPU 比较（降频，或有其他进程占用）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="44"/>
        <source>the fullest GPU uses {share} of its memory: a larger image or a fragmenting allocator ends the run with out-of-memory</source>
        <translation>最满的 GPU 已用 {share} 的显存：更大的图像或内存碎片会使运行因显存不足而终止</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="45"/>
        <source>the fullest GPU uses only {share} of its memory: a larger batch per rank fits and keeps the GPU busier</source>
        <translation>最满的 GPU 只用了 {share} 的显存：每个 rank 可以用更大的批次，让 GPU 更忙碌</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="46"/>
        <source>the GPUs are busy {percent} of the time although the ranks hardly wait for data or peers</source>
        <translation>GPU 只有 {percent} 的时间在忙，而各 rank 几乎不等待数据或其他 rank</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="47"/>
        <source>; they compute in fp32 where bf16 (auto) doubles the tensor-core rate</source>
        <translation>；它们以 fp32 计算，而 bf16（auto）可使张量核心速率翻倍</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="48"/>
        <source>; channels-last convolutions are faster on tensor cores</source>
        <translation>；channels-last 卷积在张量核心上更快</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="49"/>
        <source>; a small batch leaves the step launch-bound (many small kernels)</source>
        <translation>；批次太小使每步受限于内核启动（大量小内核）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="50"/>
        <source>{title}: {message}</source>
        <translation>{title}：{message}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="51"/>
        <source> -&gt; try {advice}</source>
        <translation> -&gt; 试试 {advice}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="52"/>
        <source> (+{count} more)</source>
        <translation>（另有 {count} 项）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="53"/>
        <source>warm-up: {count} step samples not judged yet (first steps, and the first epoch while a cache fills)</source>
        <translation>预热：{count} 个步样本尚未评判（最初几步，以及缓存填充期间的第一轮）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="54"/>
        <source>no step timings to judge</source>
        <translation>没有可评判的步耗时</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="55"/>
        <source>no bottleneck found: {detail}</source>
        <translation>未发现瓶颈：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="56"/>
        <source>ranks compute {compute} of their step (data wait {data}, all-reduce wait {wait})</source>
        <translation>各 rank 每步有 {compute} 的时间在计算（等待数据 {data}，等待 all-reduce {wait}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="57"/>
        <source>not enough steps to judge: {steps} step samples after the {warmup} of the warm-up (at least {needed} needed)</source>
        <translation>步数不足以评判：预热的 {warmup} 个之后只有 {steps} 个步样本（至少需要 {needed} 个）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="58"/>
        <source>{text}</source>
        <translation>{text}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="59"/>
        <source>no config named &apos;{name}&apos; (configs: {configs})</source>
        <translation>没有名为“{name}”的配置（现有配置：{configs}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="60"/>
        <source>dataset not found: {path} (stored as &apos;{stored}&apos;, relative to the project folder)</source>
        <translation>找不到数据集：{path}（项目中记为“{stored}”，相对于项目文件夹）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="61"/>
        <source>folder does not exist: {path}</source>
        <translation>文件夹不存在：{path}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="62"/>
        <source>missing: data.yaml needs class names (names: [a, b, ...])</source>
        <translation>缺少：data.yaml 需要类别名称（names: [a, b, ...]）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="63"/>
        <source>no classes given</source>
        <translation>未给出任何类别</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="64"/>
        <source>missing: data.yaml needs &apos;{key}&apos; (a folder, a .txt list of images, or a list of them)</source>
        <translation>缺少：data.yaml 需要“{key}”（一个文件夹、一个列出图像的 .txt 文件，或它们的列表）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="65"/>
        <source>the list of paths is empty</source>
        <translation>路径列表为空</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="66"/>
        <source>path does not exist: {path}</source>
        <translation>路径不存在：{path}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="67"/>
        <source>not valid YAML: {detail}</source>
        <translation>不是有效的 YAML：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="68"/>
        <source>expected a map with keys path, train, val, test, names</source>
        <translation>应为包含 path、train、val、test、names 键的映射</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="69"/>
        <source>nc is {nc} but names has {count} entries</source>
        <translation>nc 为 {nc}，但 names 有 {count} 项</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="70"/>
        <source>expected {type} ({range}), got {value}</source>
        <translation>应为 {type}（{range}），实际为 {value}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="71"/>
        <source>{value} is out of range: expected {range}</source>
        <translation>{value} 超出范围：应为{range}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="72"/>
        <source>{value} is not valid: expected {range}</source>
        <translation>{value} 无效：应为{range}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="73"/>
        <location filename="../core/studio/engine_strings.cpp" line="342"/>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="74"/>
        <location filename="../core/studio/engine_strings.cpp" line="341"/>
        <source>an integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="75"/>
        <source>an integer &gt;= {min}</source>
        <translation>≥ {min} 的整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="76"/>
        <source>an integer &lt;= {max}</source>
        <translation>≤ {max} 的整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="77"/>
        <source>an integer in [{min}, {max}]</source>
        <translation>[{min}, {max}] 内的整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="78"/>
        <location filename="../core/studio/engine_strings.cpp" line="340"/>
        <source>a number</source>
        <translation>数值</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="79"/>
        <source>a number &gt;= {min}</source>
        <translation>≥ {min} 的数值</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="80"/>
        <source>a number &lt;= {max}</source>
        <translation>≤ {max} 的数值</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="81"/>
        <source>a number in [{min}, {max}]</source>
        <translation>[{min}, {max}] 内的数值</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="82"/>
        <source>one of {choices}</source>
        <translation>以下之一：{choices}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="83"/>
        <location filename="../core/studio/engine_strings.cpp" line="343"/>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="84"/>
        <source>a path</source>
        <translation>路径</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="85"/>
        <source>a list of integers such as 0,1,2</source>
        <translation>整数列表，例如 0,1,2</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="86"/>
        <source>unknown key{near}; &apos;stave-train config-docs&apos; lists every key</source>
        <translation>未知的键{near}；&apos;stave-train config-docs&apos; 列出了所有键</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="87"/>
        <source> (did you mean &apos;{key}&apos;?)</source>
        <translation>（你是不是想写“{key}”？）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="88"/>
        <source>expected {range}, got {value}</source>
        <translation>应为{range}，实际为 {value}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="89"/>
        <source>nothing (null)</source>
        <translation>空值（null）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="90"/>
        <source>a list</source>
        <translation>一个列表</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="91"/>
        <source>a mapping</source>
        <translation>一个映射</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="92"/>
        <source>the string &quot;{value}&quot;</source>
        <translation>字符串 &quot;{value}&quot;</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="93"/>
        <source>&apos;{value}&apos;</source>
        <translation>&apos;{value}&apos;</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="94"/>
        <source>expected a mapping of &apos;key: value&apos; lines at the top level</source>
        <translation>顶层应为由“key: value”行组成的映射</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="95"/>
        <source>this is a data.yaml (a dataset description), not a run config; use data={file} (e.g. stave-train train data={file} model=yolov8n epochs=50)</source>
        <translation>这是一个 data.yaml（数据集描述），不是运行配置；请使用 data={file}（例如 stave-train train data={file} model=yolov8n epochs=50）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="96"/>
        <source>keys must be plain names</source>
        <translation>键必须是普通名称</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="97"/>
        <source>duplicate key (first set on line {line})</source>
        <translation>重复的键（第一次在第 {line} 行设置）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="98"/>
        <source>the file is empty (0 bytes); a run config sets at least data: path/to/data.yaml</source>
        <translation>文件为空（0 字节）；运行配置至少要设置 data: path/to/data.yaml</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="99"/>
        <source>the file is empty: it holds only comments; a run config sets at least data: path/to/data.yaml</source>
        <translation>文件为空：只有注释；运行配置至少要设置 data: path/to/data.yaml</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="100"/>
        <source>the file is empty: it holds only blank lines; a run config sets at least data: path/to/data.yaml</source>
        <translation>文件为空：只有空行；运行配置至少要设置 data: path/to/data.yaml</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="101"/>
        <source>not a Stave project file (expected &quot;format&quot;: &quot;{format}&quot;)</source>
        <translation>不是 Stave 项目文件（应有 &quot;format&quot;: &quot;{format}&quot;）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="102"/>
        <source>missing or not an integer</source>
        <translation>缺失或不是整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="103"/>
        <source>the file was written by a newer Stave (format version {version}); this build reads up to version {supported}. Open it with a newer Stave; the file was not changed</source>
        <translation>该文件由更新版本的 Stave 写入（格式版本 {version}）；此版本最多读取版本 {supported}。请用更新的 Stave 打开；文件未被修改</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="104"/>
        <source>must be &gt;= 1, got {version}</source>
        <translation>必须 ≥ 1，实际为 {version}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="105"/>
        <source>not a Stave project file: a project file is JSON text starting with &apos;{{&apos;, this one starts with {start}</source>
        <translation>不是 Stave 项目文件：项目文件是以“{{”开头的 JSON 文本，而此文件以 {start} 开头</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="106"/>
        <source>binary data</source>
        <translation>二进制数据</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="107"/>
        <source>number out of range {number} (beyond what a double can hold)</source>
        <translation>数值超出范围 {number}（超出 double 能表示的范围）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="108"/>
        <source>not valid JSON (truncated or malformed): {detail}</source>
        <translation>不是有效的 JSON（被截断或格式错误）：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="109"/>
        <source>duplicate key (also on line {line}); remove one of them</source>
        <translation>重复的键（第 {line} 行也有）；请删除其中一个</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="110"/>
        <source>nested more than {depth} levels deep: not a file Stave wrote (damaged or hand-made); nothing was read from it</source>
        <translation>嵌套超过 {depth} 层：不是 Stave 写入的文件（已损坏或手工制作）；未从中读取任何内容</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="111"/>
        <source>must be less than nnodes ({nnodes}), got {node_rank}</source>
        <translation>必须小于 nnodes（{nnodes}），实际为 {node_rank}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="112"/>
        <source>nproc {nproc} needs one GPU per rank, but devices lists {count} (&apos;{devices}&apos;)</source>
        <translation>nproc {nproc} 需要每个 rank 一块 GPU，但 devices 只列出 {count} 块（“{devices}”）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="113"/>
        <source>non-finite loss at epoch {epoch} iteration {iter}: step skipped</source>
        <translation>第 {epoch} 轮第 {iter} 次迭代的损失不是有限值：已跳过该步</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="114"/>
        <source>{count} non-finite losses up to epoch {epoch} iteration {iter}: steps skipped</source>
        <translation>截至第 {epoch} 轮第 {iter} 次迭代共有 {count} 个非有限损失：已跳过这些步</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="115"/>
        <source>{count} problems in the {split} split (first: {first}); see `stave-train check-dataset`</source>
        <translation>{split} 划分中有 {count} 个问题（第一个：{first}）；请查看 `stave-train check-dataset`</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="116"/>
        <source>the dataset changed since {checkpoint} was written (content hash {old} -&gt; {new}: images added, removed or relabelled); the run continues on the data as it is now</source>
        <translation>自 {checkpoint} 写入以来数据集已改变（内容哈希 {old} -&gt; {new}：有图像被添加、删除或重新标注）；运行将在当前的数据上继续</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="117"/>
        <source>stop requested: asking every rank to finish its step and stop</source>
        <translation>已请求停止：要求每个 rank 完成当前步后停止</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="118"/>
        <source>second stop request: killing every rank</source>
        <translation>第二次停止请求：正在强制结束每个 rank</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="119"/>
        <source>rank {rank} has not started training {seconds} s after it was launched: the ranks wait at the rendezvous ({address}) until all {nnodes} nodes have joined; is every node&apos;s launcher started, with the same master_addr, master_port and nnodes? (Ctrl-C or SIGTERM stops this wait at once)</source>
        <translation>rank {rank} 启动 {seconds} 秒后仍未开始训练：各 rank 在汇合点（{address}）等待全部 {nnodes} 个节点加入；每个节点的启动器是否都已启动，且 master_addr、master_port 和 nnodes 相同？（Ctrl-C 或 SIGTERM 可立即结束等待）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="120"/>
        <source>rank 0 has stopped; rank(s) {ranks} still running {seconds} s later (blocked or stopped) were killed</source>
        <translation>rank 0 已停止；{seconds} 秒后仍在运行的 rank {ranks}（阻塞或已暂停）已被强制结束</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="121"/>
        <source>ranks did not stop within {seconds} s of the stop request; killed</source>
        <translation>各 rank 在停止请求后 {seconds} 秒内未停止；已强制结束</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="122"/>
        <source>rank {rank} (pid {pid}) has sent no event for {seconds} s; its step events came every {interval} s. {state}The other ranks wait for it; the run is stopped after {limit} s of silence (nccl_timeout_s)</source>
        <translation>rank {rank}（pid {pid}）已有 {seconds} 秒没有发送任何事件；它的步事件原本每 {interval} 秒一次。{state}其他 rank 在等待它；静默 {limit} 秒后运行将被停止（nccl_timeout_s）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="123"/>
        <source>The process is stopped (SIGSTOP or a debugger): SIGCONT resumes it. </source>
        <translation>该进程已被暂停（SIGSTOP 或调试器）：SIGCONT 可使其继续。</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="124"/>
        <source>The process waits in uninterruptible I/O (disk or network file system). </source>
        <translation>该进程正在不可中断的 I/O 中等待（磁盘或网络文件系统）。</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="125"/>
        <source>rank {rank} sent no event for {seconds} s (limit {limit} s): hung, e.g. blocked in a collective; stopping the run</source>
        <translation>rank {rank} 已有 {seconds} 秒没有发送任何事件（上限 {limit} 秒）：已挂起，例如阻塞在集合通信中；正在停止运行</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="126"/>
        <source>a rank blocked in a collective usually waits for a peer that is stuck or gone; see the rank logs (NCCL_DEBUG=INFO helps on CUDA)</source>
        <translation>阻塞在集合通信中的 rank 通常在等待一个卡住或已消失的对端；请查看各 rank 的日志（CUDA 上 NCCL_DEBUG=INFO 有帮助）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="127"/>
        <source>rank {rank} (pid {pid}) ended with {how}{detail}; stopping the other ranks</source>
        <translation>rank {rank}（pid {pid}）以{how}结束{detail}；正在停止其他 rank</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="128"/>
        <source>exit code {code}</source>
        <translation>退出码 {code}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="129"/>
        <source>signal {signal}</source>
        <translation>信号 {signal}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="130"/>
        <source> (the worker command could not be executed)</source>
        <translation>（无法执行 worker 命令）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="131"/>
        <source>: {cause}</source>
        <translation>：{cause}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="132"/>
        <source>cannot start rank {rank}: {reason}</source>
        <translation>无法启动 rank {rank}：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="133"/>
        <source>stopped on request before training started (the ranks were still at the rendezvous or setting up); nothing was trained</source>
        <translation>训练开始前已按请求停止（各 rank 仍在汇合点或正在准备）；没有进行任何训练</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="134"/>
        <source>the event relay to node 0 is not connected ({reason}); this node&apos;s own event log ({log}) has all its events</source>
        <translation>到节点 0 的事件中继未连接（{reason}）；本节点自己的事件日志（{log}）包含其全部事件</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="135"/>
        <source>the event relay to node 0 dropped {count} events while node 0 could not be reached; this node&apos;s own event log ({log}) has them all</source>
        <translation>节点 0 无法访问期间，到节点 0 的事件中继丢弃了 {count} 个事件；本节点自己的事件日志（{log}）包含全部事件</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="136"/>
        <source>the other ranks&apos; events cannot reach events.jsonl ({reason}); rank 0&apos;s are written, and the run goes on</source>
        <translation>其他 rank 的事件无法写入 events.jsonl（{reason}）；rank 0 的事件照常写入，运行继续</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="137"/>
        <source>the validation views were not written: {reason}</source>
        <translation>未能写入验证视图：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="138"/>
        <source>could not write results.csv: {reason}</source>
        <translation>无法写入 results.csv：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="139"/>
        <source>optimizer=auto keeps {optimizer} (lr0 {lr}) from the checkpoint; a new run of this length would pick {other}</source>
        <translation>optimizer=auto 沿用检查点中的 {optimizer}（lr0 {lr}）；同样长度的新运行会选择 {other}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="140"/>
        <source>resumed with {world} ranks; {checkpoint} was written by {before}: the per-rank batch ({per_rank}), nbs ({nbs}) and the schedule stay; the global batch is {global} images (was {old_global}), gradients are accumulated over {accumulate} steps (was {old_accumulate}), and epoch {epoch} has {batches} batches per rank</source>
        <translation>以 {world} 个 rank 恢复；{checkpoint} 由 {before} 个 rank 写入：每个 rank 的批大小（{per_rank}）、nbs（{nbs}）和学习率计划保持不变；全局批大小为 {global} 张图像（原为 {old_global}），梯度在 {accumulate} 步上累积（原为 {old_accumulate}），第 {epoch} 轮每个 rank 有 {batches} 个批次</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="141"/>
        <source>Transferred {transferred}/{total} items from pretrained weights ({writer}, {source}); kept {count} as initialised: {kept} {path}</source>
        <translation>已从预训练权重（{writer}，{source}）迁移 {transferred}/{total} 项；{count} 项保持初始化值：{kept} {path}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="142"/>
        <source>the head&apos;s class branch ({from} -&gt; {to} classes)</source>
        <translation>检测头的类别分支（{from} -&gt; {to} 个类别）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="143"/>
        <source>{problem}; used as a grey {split} image without boxes</source>
        <translation>{problem}；已作为不含框的灰色 {split} 图像使用</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="144"/>
        <source>{count} more {split} images could not be used ({total} undecodable so far on rank {rank}); stave-train check-dataset --verify lists them</source>
        <translation>另有 {count} 张 {split} 图像无法使用（rank {rank} 上迄今共 {total} 张无法解码）；stave-train check-dataset --verify 会列出它们</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="145"/>
        <source>rank {rank} was asked to stop but made no progress for {seconds} s (blocked: in a collective whose peer is gone, or waiting for the data loader); it ended without writing a checkpoint: resume=true continues from the last one</source>
        <translation>rank {rank} 被要求停止，但 {seconds} 秒内没有任何进展（阻塞：在对端已消失的集合通信中，或在等待数据加载器）；它结束时没有写入检查点：resume=true 会从上一个检查点继续</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="146"/>
        <source>training failed: {reason}</source>
        <translation>训练失败：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="147"/>
        <source>out of device memory on {device} with batch {batch} per rank, imgsz {imgsz}, precision {precision}, model {model}</source>
        <translation>{device} 显存不足：每个 rank 批大小 {batch}，imgsz {imgsz}，精度 {precision}，模型 {model}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="148"/>
        <source>lower batch (e.g. batch={half}; accumulation keeps the nominal batch {nbs}), or imgsz, or use precision=bf16/fp16, or a smaller model; weights/last.pt is intact</source>
        <translation>减小 batch（例如 batch={half}；梯度累积会保持名义批大小 {nbs}），或减小 imgsz，或使用 precision=bf16/fp16，或换更小的模型；weights/last.pt 完好无损</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="149"/>
        <source>devices={devices} asks for GPUs, but there is no CUDA device: {reason}</source>
        <translation>devices={devices} 要求使用 GPU，但没有 CUDA 设备：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="150"/>
        <source>use devices=cpu, or run where an NVIDIA GPU and its driver are</source>
        <translation>使用 devices=cpu，或在装有 NVIDIA GPU 及其驱动的机器上运行</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="151"/>
        <source>devices: GPU {id} does not exist ({count} visible)</source>
        <translation>devices：GPU {id} 不存在（可见 {count} 块）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="152"/>
        <source>list GPUs 0..{last}</source>
        <translation>请列出 GPU 0..{last}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="153"/>
        <source>set precision=fp32 or bf16 on the CPU</source>
        <translation>在 CPU 上请设置 precision=fp32 或 bf16</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="154"/>
        <source>check the `data` key and the dataset&apos;s data.yaml</source>
        <translation>请检查 `data` 键和数据集的 data.yaml</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="155"/>
        <source>run `stave-train check-dataset` on the data.yaml</source>
        <translation>请对该 data.yaml 运行 `stave-train check-dataset`</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="156"/>
        <source>the {split} split of {yaml} has no usable images</source>
        <translation>{yaml} 的 {split} 划分中没有可用的图像</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="157"/>
        <source>run `stave-train check-dataset` to see why</source>
        <translation>运行 `stave-train check-dataset` 查看原因</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="158"/>
        <source>the train split gives no batches</source>
        <translation>训练集划分产生不了任何批次</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="159"/>
        <source>use a smaller batch</source>
        <translation>请使用更小的批大小</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="160"/>
        <source>{key} takes a checkpoint (.pt) of Stave (runs/&lt;id&gt;/weights/best.pt) or of Ultralytics (yolo11n.pt, an Ultralytics run&apos;s best.pt)</source>
        <translation>{key} 接受 Stave 的检查点（.pt，runs/&lt;id&gt;/weights/best.pt）或 Ultralytics 的检查点（yolo11n.pt、Ultralytics 运行的 best.pt）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="161"/>
        <source>{path}: no tensor of it matches this model ({model}, {nc} classes)</source>
        <translation>{path}：其中没有任何张量与此模型匹配（{model}，{nc} 个类别）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="162"/>
        <source>model takes yolov8n..yolov8x, yolo11n..yolo11x or a checkpoint (.pt) of Stave or Ultralytics</source>
        <translation>model 接受 yolov8n..yolov8x、yolo11n..yolo11x，或 Stave 或 Ultralytics 的检查点（.pt）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="163"/>
        <source>model: &apos;{model}&apos; names no network Stave builds</source>
        <translation>model：“{model}”不是 Stave 能构建的网络</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="164"/>
        <source>use yolov8n..yolov8x, yolo11n..yolo11x or a checkpoint (.pt)</source>
        <translation>请使用 yolov8n..yolov8x、yolo11n..yolo11x 或检查点（.pt）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="165"/>
        <source>freeze={freeze} freezes the detection head of {model} too (it has {layers} layers before it): nothing would train</source>
        <translation>freeze={freeze} 连 {model} 的检测头也冻结了（检测头之前有 {layers} 层）：没有任何层可训练</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="166"/>
        <source>use freeze={layers} at most (10 freezes the backbone)</source>
        <translation>freeze 最多设为 {layers}（10 冻结骨干网络）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="167"/>
        <source>resume needs the run&apos;s weights/last.pt (--run-dir)</source>
        <translation>恢复训练需要该运行的 weights/last.pt（--run-dir）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="168"/>
        <source>the run stopped inside epoch {epoch} after {batches} batches of {before} ranks ({images} images), which is no whole number of batches of {world} ranks</source>
        <translation>该运行停在第 {epoch} 轮中途，此时 {before} 个 rank 已完成 {batches} 个批次（{images} 张图像），这不是 {world} 个 rank 的整数个批次</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="169"/>
        <source>resume with {before} ranks to finish that epoch, then with {world}</source>
        <translation>先用 {before} 个 rank 恢复以完成该轮，再用 {world} 个 rank</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="170"/>
        <source>the run in {dir} already trained {done} of {epochs} epochs</source>
        <translation>{dir} 中的运行已训练 {done}/{epochs} 轮</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="171"/>
        <source>resume with a larger epochs=N to extend it</source>
        <translation>用更大的 epochs=N 恢复训练以延长它</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="172"/>
        <source>{bad} of {total} {split} images could not be decoded, more than max_bad_images={max} of the split</source>
        <translation>{split} 划分的 {total} 张图像中有 {bad} 张无法解码，超过了 max_bad_images={max}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="173"/>
        <source>fix or remove the broken files (stave-train check-dataset --verify names them), or raise max_bad_images to train on without them</source>
        <translation>修复或删除损坏的文件（stave-train check-dataset --verify 会列出它们），或调高 max_bad_images 以在没有它们的情况下继续训练</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="174"/>
        <source>check that the run folder is writable</source>
        <translation>请检查运行文件夹是否可写</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="175"/>
        <source>check free disk space in the run folder</source>
        <translation>请检查运行文件夹所在磁盘的剩余空间</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="176"/>
        <source>the loss was not finite (inf or NaN) in {count} steps in a row (epoch {epoch}, iteration {iter}); the run cannot recover</source>
        <translation>损失连续 {count} 步不是有限值（inf 或 NaN）（第 {epoch} 轮，第 {iter} 次迭代）；运行无法恢复</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="177"/>
        <source>lower lr0, use precision=bf16 instead of fp16, and check the labels (stave-train check-dataset)</source>
        <translation>降低 lr0，用 precision=bf16 代替 fp16，并检查标签（stave-train check-dataset）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="178"/>
        <source>stopped during epoch {epoch} after {batches} of {total} batches; resume=true continues</source>
        <translation>在第 {epoch} 轮完成 {batches}/{total} 个批次后停止；resume=true 可继续</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="179"/>
        <source>no improvement for {patience} epochs (best epoch {best}); stopped early</source>
        <translation>连续 {patience} 轮没有提升（最佳为第 {best} 轮）；已提前停止</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="180"/>
        <source>time budget of {hours} h reached</source>
        <translation>已达到 {hours} 小时的时间预算</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="181"/>
        <source>stopped on request after epoch {epoch}; resume=true continues</source>
        <translation>第 {epoch} 轮结束后按请求停止；resume=true 可继续</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="182"/>
        <source>stopped after {count} epochs as asked; resume=true continues</source>
        <translation>按要求训练 {count} 轮后停止；resume=true 可继续</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="183"/>
        <source>training {train}, validation {val}</source>
        <translation>训练 {train}，验证 {val}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="184"/>
        <source>; training {train}, validation {val}</source>
        <translation>；训练 {train}，验证 {val}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="185"/>
        <source>; {count} non-finite losses, {skipped} optimiser steps skipped</source>
        <translation>；{count} 个非有限损失，跳过了 {skipped} 次优化器更新</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="186"/>
        <source>{n} s</source>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="187"/>
        <source>{min} min {s} s</source>
        <translation>{min} 分 {s} 秒</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="188"/>
        <source>{h} h {min} min</source>
        <translation>{h} 小时 {min} 分</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="189"/>
        <source>ended without a final event: no process holds its folder (killed, or its machine went down) after epoch {done} of {epochs}; resume=true continues from its last checkpoint</source>
        <translation>没有最终事件就结束了：没有进程持有其文件夹（被强制结束，或其机器已停机），当时完成第 {done}/{epochs} 轮；resume=true 可从其最后一个检查点继续</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="190"/>
        <source>{path}: cannot be read ({reason})</source>
        <translation>{path}：无法读取（{reason}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="191"/>
        <source>{path}: the folder could not be listed to the end ({reason})</source>
        <translation>{path}：无法列出该文件夹的全部内容（{reason}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="192"/>
        <source>{path}: not a readable image{detail}</source>
        <translation>{path}：不是可读取的图像{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="193"/>
        <source>{path}: cannot encode the annotated image</source>
        <translation>{path}：无法编码标注后的图像</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="194"/>
        <source>no such image file or folder</source>
        <translation>没有这个图像文件或文件夹</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="195"/>
        <source>no images (.jpg, .png, .bmp, .tif, .webp) found</source>
        <translation>未找到图像（.jpg、.png、.bmp、.tif、.webp）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="196"/>
        <location filename="../core/studio/engine_strings.cpp" line="479"/>
        <source>{bytes} bytes</source>
        <translation>{bytes} 字节</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="197"/>
        <source>{bytes}</source>
        <translation>{bytes}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="198"/>
        <source>{model}, {nc} classes, {nodes} nodes, {parameters} parameters, {size}; checked by the ONNX checker</source>
        <translation>{model}，{nc} 个类别，{nodes} 个节点，{parameters} 个参数，{size}；已通过 ONNX 检查器校验</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="199"/>
        <source>
  input  {input}, RGB 0..1</source>
        <translation>
  输入  {input}，RGB 0..1</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="200"/>
        <source>
  output {output}: centre x, centre y, width, height (input pixels), then class scores</source>
        <translation>
  输出 {output}：中心 x、中心 y、宽、高（输入像素），随后是各类别得分</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="201"/>
        <source>
  float16 against float32 on the GPU: class scores differ by at most {diff}</source>
        <translation>
  float16 与 float32 在 GPU 上对比：类别得分最多相差 {diff}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="202"/>
        <source>the EMA weights without optimiser state ({size}; {before} before); val, predict and pretrained= read it, resume does not</source>
        <translation>不含优化器状态的 EMA 权重（{size}；原为 {before}）；val、predict 和 pretrained= 可读取它，resume 不能</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="203"/>
        <source>{model}, {nc} classes, {tensors} tensors</source>
        <translation>{model}，{nc} 个类别，{tensors} 个张量</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="204"/>
        <source>
load it with Ultralytics: YOLO(&quot;{file}&quot;); export: yolo export model={file} format=onnx</source>
        <translation>
用 Ultralytics 加载：YOLO(&quot;{file}&quot;)；导出：yolo export model={file} format=onnx</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="205"/>
        <source>a float16 model is checked on a CUDA device before it is written, and there is none here ({reason}); export float32 (without --half) or run this on a machine with a GPU</source>
        <translation>float16 模型在写入前要在 CUDA 设备上校验，而这里没有 CUDA 设备（{reason}）；请导出 float32（不加 --half），或在有 GPU 的机器上运行</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="206"/>
        <source>no such checkpoint</source>
        <translation>没有这个检查点</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="207"/>
        <source>needs a file name</source>
        <translation>需要一个文件名</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="208"/>
        <source>needs a folder name</source>
        <translation>需要一个文件夹名</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="209"/>
        <source>is an input of this command ({input}); writing there would destroy it. Choose another file</source>
        <translation>是此命令的输入（{input}）；写到这里会毁掉它。请选择其他文件</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="210"/>
        <source>is a folder; give a file name</source>
        <translation>是一个文件夹；请给出文件名</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="211"/>
        <source>already exists; pass --force to replace it</source>
        <translation>已存在；传入 --force 可替换它</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="212"/>
        <source>holds an input of this command ({input}); its files could be overwritten. Choose another folder</source>
        <translation>包含此命令的输入（{input}）；其中的文件可能被覆盖。请选择其他文件夹</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="213"/>
        <source>is a file, not a folder</source>
        <translation>是一个文件，不是文件夹</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="214"/>
        <source>already exists and is not empty; pass --force to write into it (files of the same name are replaced)</source>
        <translation>已存在且不为空；传入 --force 可写入其中（同名文件会被替换）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="215"/>
        <source>node {node} ({address}{host}) was lost: its {ranks} {how} during a collective (its launcher or the machine went away, or the network between them failed); the run stops here and resume=true on every node continues from the last checkpoint</source>
        <translation>节点 {node}（{address}{host}）已丢失：它的 {ranks} 在集合通信中{how}（其启动器或机器已消失，或两者之间的网络出现故障）；运行在此停止，在每个节点上用 resume=true 可从上一个检查点继续</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="216"/>
        <source>, host {host}</source>
        <translation>，主机 {host}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="217"/>
        <source>a peer at {address} (one of {ranks}) {how} during a collective: that rank ended; the run stops here</source>
        <translation>位于 {address} 的一个对端（{ranks} 之一）在集合通信中{how}：该 rank 已结束；运行在此停止</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="218"/>
        <source>stopped answering</source>
        <translation>停止了响应</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="219"/>
        <source>closed their connections</source>
        <translation>关闭了连接</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="220"/>
        <source>closed its connection</source>
        <translation>关闭了连接</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="221"/>
        <source>ranks {first}-{last}</source>
        <translation>rank {first}-{last}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="222"/>
        <source>ranks {ranks}</source>
        <translation>rank {ranks}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="223"/>
        <source>nproc, nnodes must be &gt;= 1 and node_rank in [0, nnodes)</source>
        <translation>nproc、nnodes 必须 ≥ 1，且 node_rank 须在 [0, nnodes) 内</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="224"/>
        <source>0 (pick a free port) works on one node only; give a port</source>
        <translation>0（自动选择空闲端口）只适用于单节点；请指定一个端口</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="225"/>
        <source>cannot bind a free port on {host}: {reason}</source>
        <translation>无法在 {host} 上绑定空闲端口：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="226"/>
        <source>cannot create {path}: {reason}</source>
        <translation>无法创建 {path}：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="227"/>
        <source>the event relay: {reason}</source>
        <translation>事件中继：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="228"/>
        <source>cannot serve metrics on {address}: {reason}</source>
        <translation>无法在 {address} 上提供指标服务：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="229"/>
        <source>no such address or host name</source>
        <translation>没有这个地址或主机名</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="230"/>
        <source>the port is in use (another run or service)</source>
        <translation>端口已被占用（另一个运行或服务）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="231"/>
        <source>no permission (ports below 1024 need root)</source>
        <translation>没有权限（1024 以下的端口需要 root）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="232"/>
        <source>not an address of this machine</source>
        <translation>不是本机的地址</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="233"/>
        <source>checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="234"/>
        <source>archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="235"/>
        <source>damaged {noun}: the record cannot be read ({detail}); the file cannot be trusted</source>
        <translation>{noun}已损坏：无法读取该记录（{detail}）；该文件不可信</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="236"/>
        <source>damaged {noun}: the record is longer than its directory says</source>
        <translation>{noun}已损坏：该记录比其目录所记载的更长</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="237"/>
        <source>damaged {noun}: {detail} (its bytes are not the ones written); the file cannot be trusted</source>
        <translation>{noun}已损坏：{detail}（其字节与写入时不同）；该文件不可信</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="238"/>
        <source>damaged {noun}: the record ends after {done} of its {size} bytes</source>
        <translation>{noun}已损坏：该记录在其 {size} 字节中的第 {done} 字节处就结束了</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="239"/>
        <source>cannot check the checkpoint archive: {detail}</source>
        <translation>无法检查检查点归档：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="240"/>
        <source>Not a zip archive</source>
        <translation>不是 zip 归档</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="241"/>
        <source>Zip archive inconsistent</source>
        <translation>zip 归档前后不一致</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="242"/>
        <source>CRC error</source>
        <translation>CRC 校验错误</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="243"/>
        <source>Premature end of file</source>
        <translation>文件提前结束</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="244"/>
        <source>Compressed data invalid</source>
        <translation>压缩数据无效</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="245"/>
        <source>not a readable Stave checkpoint: not a complete checkpoint archive (cut off, damaged, or not a .pt file) [{detail}]</source>
        <translation>不是可读取的 Stave 检查点：不是完整的检查点归档（被截断、已损坏，或不是 .pt 文件）[{detail}]</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="246"/>
        <source>not a readable torch.save archive: not a complete zip archive (cut off, damaged, or not a .pt file) [{detail}]</source>
        <translation>不是可读取的 torch.save 归档：不是完整的 zip 归档（被截断、已损坏，或不是 .pt 文件）[{detail}]</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="247"/>
        <source>written by torch.save with _use_new_zipfile_serialization=False (PyTorch&apos;s format before 1.6), which Stave does not read; re-save it with a current PyTorch (torch.save(torch.load(f), f))</source>
        <translation>由 torch.save 以 _use_new_zipfile_serialization=False 写入（PyTorch 1.6 之前的格式），Stave 不读取这种格式；请用当前的 PyTorch 重新保存（torch.save(torch.load(f), f)）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="248"/>
        <source>written by torch.save in the format of PyTorch before 1.6, which Stave does not read: load it and save it again with a current PyTorch</source>
        <translation>由 torch.save 以 PyTorch 1.6 之前的格式写入，Stave 不读取这种格式：请用当前的 PyTorch 加载后重新保存</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="249"/>
        <source>not a torch.save archive (the file is not a zip archive)</source>
        <translation>不是 torch.save 归档（该文件不是 zip 归档）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="250"/>
        <source>a TorchScript archive (a Stave checkpoint or torch.jit.save), not a torch.save one</source>
        <translation>这是 TorchScript 归档（Stave 检查点或 torch.jit.save 的输出），不是 torch.save 归档</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="251"/>
        <source>not a torch.save archive: it holds no &lt;folder&gt;/data.pkl record</source>
        <translation>不是 torch.save 归档：其中没有 &lt;folder&gt;/data.pkl 记录</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="252"/>
        <source>the record cannot be found</source>
        <translation>找不到该记录</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="253"/>
        <source>damaged archive: no size for the record ({detail})</source>
        <translation>归档已损坏：该记录没有大小（{detail}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="254"/>
        <source>damaged or hostile archive: its compressed records claim {expanded} bytes, more than {factor} times the file&apos;s {bytes} bytes</source>
        <translation>归档已损坏或带有恶意：其压缩记录声称有 {expanded} 字节，超过文件本身 {bytes} 字节的 {factor} 倍</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="255"/>
        <source>the pickle is {size} bytes, more than the limit of {limit}</source>
        <translation>pickle 有 {size} 字节，超过了 {limit} 的上限</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="256"/>
        <source>at byte {offset}: storage {key} has no record {name} in the archive</source>
        <translation>在第 {offset} 字节处：存储 {key} 在归档中没有记录 {name}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="257"/>
        <source>at byte {offset}: {detail}</source>
        <translation>在第 {offset} 字节处：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="258"/>
        <source>out of memory while reading the pickle</source>
        <translation>读取 pickle 时内存不足</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="259"/>
        <source>the checkpoint file is empty (0 bytes)</source>
        <translation>检查点文件为空（0 字节）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="260"/>
        <source>not a readable Stave checkpoint or a different model: {detail}</source>
        <translation>不是可读取的 Stave 检查点，或属于另一个模型：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="261"/>
        <source>not a readable Stave checkpoint or a different model: not a complete checkpoint archive (cut off, or not a .pt file) [{detail}]</source>
        <translation>不是可读取的 Stave 检查点，或属于另一个模型：不是完整的检查点归档（被截断，或不是 .pt 文件）[{detail}]</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="262"/>
        <source>this checkpoint has no optimiser state, so it cannot be resumed</source>
        <translation>该检查点没有优化器状态，因此无法恢复训练</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="263"/>
        <source>the checkpoint names {names} classes but its model&apos;s head has {nc} class outputs (nc {nc}): the file is inconsistent and is not used</source>
        <translation>检查点列出了 {names} 个类别名称，但其模型的检测头有 {nc} 个类别输出（nc {nc}）：文件前后不一致，不予使用</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="264"/>
        <source>at byte {offset}: holds a {what}, not an Ultralytics checkpoint (a dict with &apos;model&apos; or &apos;ema&apos;)</source>
        <translation>在第 {offset} 字节处：内容是 {what}，不是 Ultralytics 检查点（含 &apos;model&apos; 或 &apos;ema&apos; 的字典）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="265"/>
        <source>at byte {offset}: not an Ultralytics checkpoint: neither &apos;ema&apos; nor &apos;model&apos; holds a model (keys: {keys})</source>
        <translation>在第 {offset} 字节处：不是 Ultralytics 检查点：&apos;ema&apos; 和 &apos;model&apos; 都不含模型（键：{keys}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="266"/>
        <source>at byte {offset}: &apos;{source}&apos; holds a dict (a bare state_dict), not an Ultralytics model; Stave needs the model object with its yaml</source>
        <translation>在第 {offset} 字节处：&apos;{source}&apos; 是一个字典（单纯的 state_dict），不是 Ultralytics 模型；Stave 需要带 yaml 的模型对象</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="267"/>
        <source>written by {writer}: its model is a {kind} ({task}); Stave trains detection models (yolov8n-x, yolo11n-x)</source>
        <translation>由 {writer} 写入：其模型是 {kind}（{task}）；Stave 训练的是检测模型（yolov8n-x、yolo11n-x）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="268"/>
        <source>written by {writer}: its model has no architecture description (model.yaml)</source>
        <translation>由 {writer} 写入：其模型没有结构描述（model.yaml）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="269"/>
        <source>written by {writer}: its architecture ({file}) is not one of the published yolov8n-x and yolo11n-x that Stave builds</source>
        <translation>由 {writer} 写入：其结构（{file}）不是 Stave 能构建的已发布 yolov8n-x 和 yolo11n-x 之一</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="270"/>
        <source>written by {writer}: {count} of the {model} model&apos;s tensors do not match it, e.g. {example}</source>
        <translation>由 {writer} 写入：{model} 模型中有 {count} 个张量与之不匹配，例如 {example}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="271"/>
        <source>cannot build its model: {detail}</source>
        <translation>无法构建其模型：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="272"/>
        <source>cannot copy its tensors: {detail}</source>
        <translation>无法复制其张量：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="273"/>
        <source>no such file</source>
        <translation>没有这个文件</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="274"/>
        <source>no such file: Stave does not download weights; Ultralytics publishes {file} at https://github.com/ultralytics/assets/releases — download it and give its path (or use model={stem} to train from random weights)</source>
        <translation>没有这个文件：Stave 不会下载权重；Ultralytics 在 https://github.com/ultralytics/assets/releases 发布了 {file}——请下载后给出其路径（或使用 model={stem} 从随机权重开始训练）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="275"/>
        <source>expected a JSON object of &quot;key&quot;: value pairs</source>
        <translation>应为由 &quot;key&quot;: value 对组成的 JSON 对象</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="276"/>
        <source>is a folder, not a database</source>
        <translation>是文件夹，不是数据库</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="277"/>
        <location filename="../core/studio/engine_strings.cpp" line="299"/>
        <source>cannot open: {reason}</source>
        <translation>无法打开：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="278"/>
        <source>not an SQLite database ({reason})</source>
        <translation>不是 SQLite 数据库（{reason}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="279"/>
        <source>; `stave-train history PROJECT --rebuild` recreates the database from the runs&apos; events.jsonl</source>
        <translation>；`stave-train history PROJECT --rebuild` 会根据各运行的 events.jsonl 重建数据库</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="280"/>
        <source> (is the project folder writable?)</source>
        <translation>（项目文件夹是否可写？）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="281"/>
        <source>the disk is full ({reason}); nothing of this write was kept</source>
        <translation>磁盘已满（{reason}）；此次写入的内容均未保存</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="282"/>
        <source>the history database has schema version {version}, which no Stave writes (changed by another program?); `stave-train history PROJECT --rebuild` recreates it from the runs&apos; events.jsonl. The file was not changed</source>
        <translation>历史数据库的结构版本为 {version}，没有任何 Stave 会写入这个版本（被其他程序修改过？）；`stave-train history PROJECT --rebuild` 会根据各运行的 events.jsonl 重建它。文件未被修改</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="283"/>
        <source>the history database has schema version {version}, written by a newer Stave; this build reads up to version {supported}. The file was not changed</source>
        <translation>历史数据库的结构版本为 {version}，由更新版本的 Stave 写入；此版本最多读取版本 {supported}。文件未被修改</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="284"/>
        <source>the history database is corrupt ({reason}); `stave-train history PROJECT --rebuild` recreates it from the runs&apos; events.jsonl</source>
        <translation>历史数据库已损坏（{reason}）；`stave-train history PROJECT --rebuild` 会根据各运行的 events.jsonl 重建它</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="285"/>
        <source>{file}:{line}: {type} event skipped: {reason}</source>
        <translation>{file}:{line}：已跳过 {type} 事件：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="286"/>
        <source>{file}:{line}: skipped: {reason}</source>
        <translation>{file}:{line}：已跳过：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="287"/>
        <source>{file}:{line}: skipped: a line longer than {mib} MiB (no event is that long; damaged or not an event log)</source>
        <translation>{file}:{line}：已跳过：一行超过 {mib} MiB（没有这么长的事件；文件已损坏或不是事件日志）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="288"/>
        <source>{file}: shorter than before; read again from the start</source>
        <translation>{file}：比之前更短；已从头重新读取</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="289"/>
        <source>{run}: not read: {reason}</source>
        <translation>{run}：未读取：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="290"/>
        <source>{file}: not a JSON object; title, tags and notes not restored</source>
        <translation>{file}：不是 JSON 对象；标题、标签和备注未恢复</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="291"/>
        <source>{reason}; title, tags and notes not restored</source>
        <translation>{reason}；标题、标签和备注未恢复</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="292"/>
        <source>cannot list: {reason}</source>
        <translation>无法列出：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="293"/>
        <source>cannot open</source>
        <translation>无法打开</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="294"/>
        <source>is a folder, not a file</source>
        <translation>是文件夹，不是文件</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="295"/>
        <source>is a FIFO (named pipe), not a regular file; not read</source>
        <translation>是 FIFO（命名管道），不是普通文件；未读取</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="296"/>
        <source>is a device, not a regular file; not read</source>
        <translation>是设备，不是普通文件；未读取</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="297"/>
        <source>is a socket, not a regular file; not read</source>
        <translation>是套接字，不是普通文件；未读取</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="298"/>
        <source>is not a regular file; not read</source>
        <translation>不是普通文件；未读取</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="300"/>
        <source>cannot stat: {reason}</source>
        <translation>无法获取文件信息：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="301"/>
        <source>cannot read: {reason}</source>
        <translation>无法读取：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="302"/>
        <source>read failed</source>
        <translation>读取失败</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="303"/>
        <source>{mib} MiB</source>
        <translation>{mib} MiB</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="304"/>
        <source>is {size}, larger than the {max} such a file may have; not read</source>
        <translation>大小为 {size}，超过此类文件允许的 {max}；未读取</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="305"/>
        <source>holds more than the {max} such a file may have; not read</source>
        <translation>内容超过此类文件允许的 {max}；未读取</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="306"/>
        <source>cannot create folder: {reason}</source>
        <translation>无法创建文件夹：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="307"/>
        <source>cannot create temporary file {file}: {reason}</source>
        <translation>无法创建临时文件 {file}：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="308"/>
        <source>write failed: {reason}</source>
        <translation>写入失败：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="309"/>
        <source>fsync failed: {reason}</source>
        <translation>fsync 失败：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="310"/>
        <source>rename failed: {reason}</source>
        <translation>重命名失败：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="311"/>
        <source>error: {where}{message}</source>
        <translation>错误：{where}{message}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="312"/>
        <source>the dataset cannot be used</source>
        <translation>数据集无法使用</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="313"/>
        <source>dataset {path} ({classes} classes)</source>
        <translation>数据集 {path}（{classes} 个类别）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="314"/>
        <source>[{split}] {images} images ({labelled} labelled, {background} background), {instances} instances</source>
        <translation>[{split}] {images} 张图像（{labelled} 张有标注，{background} 张背景），{instances} 个实例</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="315"/>
        <source>, {count} images left out</source>
        <translation>，{count} 张图像被排除</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="316"/>
        <source>, {count} label rows left out</source>
        <translation>，{count} 行标注被排除</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="317"/>
        <source>per class: {counts}</source>
        <translation>各类别实例数：{counts}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="318"/>
        <source>{what}: min {min}  mean {mean}  max {max}</source>
        <translation>{what}：最小 {min}  平均 {mean}  最大 {max}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="319"/>
        <source>box width</source>
        <translation>框宽度</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="320"/>
        <source>box height</source>
        <translation>框高度</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="321"/>
        <source>box aspect</source>
        <translation>框宽高比</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="322"/>
        <source>image width</source>
        <translation>图像宽度</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="323"/>
        <source>image height</source>
        <translation>图像高度</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="324"/>
        <source>{count} problems:</source>
        <translation>{count} 个问题：</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="325"/>
        <source>{where}{kind}: {message}</source>
        <translation>{where}{kind}：{message}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="326"/>
        <source>ok: no problems found</source>
        <translation>正常：未发现问题</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="327"/>
        <source>problems found (training leaves out what is unusable)</source>
        <translation>发现问题（训练会排除无法使用的部分）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="328"/>
        <source>images were checked by their headers and end markers only; --verify decodes every image (training warns about each image it cannot decode and fails past max_bad_images)</source>
        <translation>图像仅按文件头和结束标记检查；--verify 会完整解码每张图像（训练会对每张无法解码的图像发出警告，超过 max_bad_images 时失败）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="329"/>
        <source>the dataset scan stopped: {reason}</source>
        <translation>数据集扫描已中止：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="330"/>
        <source>the dataset check stopped: {reason}</source>
        <translation>数据集检查已中止：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="331"/>
        <source>the augmentation preview stopped: {reason}</source>
        <translation>数据增强预览已中止：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="332"/>
        <source>not an issues companion file (no csv_hash)</source>
        <translation>不是问题清单的附属文件（没有 csv_hash）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="333"/>
        <source>not an object</source>
        <translation>不是对象</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="334"/>
        <source>{image}: not a string</source>
        <translation>{image}：不是字符串</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="335"/>
        <source>&apos;{line}&apos;: expected a CSV line number and four numbers</source>
        <translation>“{line}”：应为 CSV 行号和四个数字</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="336"/>
        <source>belongs to another version of {csv}; not used (changed label files are found by modification time, and badly located boxes cannot be fixed)</source>
        <translation>属于 {csv} 的另一个版本；未使用（改动过的标注文件将按修改时间查找，位置不准的框无法修复）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="337"/>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="338"/>
        <source>must be {expected}, got {got}</source>
        <translation>应为{expected}，实际为 {got}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="339"/>
        <source>must be {expected}</source>
        <translation>应为{expected}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="344"/>
        <source>an array of strings</source>
        <translation>字符串数组</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="345"/>
        <source>an array of numbers</source>
        <translation>数字数组</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="346"/>
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="347"/>
        <source>an array</source>
        <translation>数组</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="348"/>
        <source>must be {{&quot;key&quot;: string, &quot;value&quot;: string}}</source>
        <translation>应为 {{&quot;key&quot;: string, &quot;value&quot;: string}}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="349"/>
        <source>must be {min} or more, got {value}</source>
        <translation>应不小于 {min}，实际为 {value}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="350"/>
        <source>&quot;{value}&quot; is not one of {valid}</source>
        <translation>“{value}”不是 {valid} 之一</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="351"/>
        <source>must not be empty</source>
        <translation>不能为空</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="352"/>
        <source>expected a &quot;{expected}&quot; event, got &quot;{type}&quot;</source>
        <translation>应为“{expected}”事件，实际为“{type}”</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="353"/>
        <source>not JSON: the line is empty</source>
        <translation>不是 JSON：该行为空</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="354"/>
        <source>not JSON: {reason}</source>
        <translation>不是 JSON：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="355"/>
        <source>a number out of range</source>
        <translation>数字超出范围</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="356"/>
        <source>not an event: expected a JSON object, got {got}</source>
        <translation>不是事件：应为 JSON 对象，实际为 {got}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="357"/>
        <source>event version {version} is newer than this program reads (up to {max}); update Stave</source>
        <translation>事件版本 {version} 比本程序能读取的版本（最高 {max}）更新；请更新 Stave</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="358"/>
        <source>{who}: {field}: {problem}</source>
        <translation>{who}: {field}: {problem}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="359"/>
        <source>cluster &apos;{name}&apos;</source>
        <translation>集群“{name}”</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="360"/>
        <source>cluster profile</source>
        <translation>集群配置</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="361"/>
        <source>a profile needs a name</source>
        <translation>配置需要一个名称</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="362"/>
        <source>expected an absolute path, got &apos;{value}&apos;</source>
        <translation>应为绝对路径，实际为“{value}”</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="363"/>
        <source>expected an absolute folder, got &apos;{value}&apos;</source>
        <translation>应为绝对路径的文件夹，实际为“{value}”</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="364"/>
        <source>expected 0 (the ssh configuration&apos;s) to 65535, got {port}</source>
        <translation>应为 0（使用 ssh 配置中的端口）到 65535，实际为 {port}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="365"/>
        <source>a cluster reached over SSH needs the folder its runs go in, as the cluster sees it</source>
        <translation>通过 SSH 访问的集群需要指定其运行所在的文件夹（集群上看到的路径）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="366"/>
        <source>give both folders of the mapping, or neither</source>
        <translation>映射的两个文件夹要么都给出，要么都不给</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="367"/>
        <source>only a cluster reached over SSH (a destination) uses it</source>
        <translation>只有通过 SSH 访问的集群（有目标地址）才使用此项</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="368"/>
        <source>no destination (user@host or a Host of ~/.ssh/config)</source>
        <translation>没有目标地址（user@host 或 ~/.ssh/config 中的 Host）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="369"/>
        <source>&apos;{destination}&apos; begins with &apos;-&apos;, which ssh would read as an option</source>
        <translation>“{destination}”以“-”开头，ssh 会把它当作选项</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="370"/>
        <source>&apos;{destination}&apos; holds a space or a control character</source>
        <translation>“{destination}”含有空格或控制字符</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="371"/>
        <source>expected an integer in [1, 100000]</source>
        <translation>应为 [1, 100000] 内的整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="372"/>
        <source>expected an integer in [0, 1024] (0: CPU ranks, no GPU request), got {gpus}</source>
        <translation>应为 [0, 1024] 内的整数（0：CPU rank，不申请 GPU），实际为 {gpus}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="373"/>
        <source>expected an integer in [0, 4096]</source>
        <translation>应为 [0, 4096] 内的整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="374"/>
        <source>expected one of Slurm&apos;s forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED (at most {minutes} minutes), got &apos;{value}&apos;</source>
        <translation>应为 Slurm 的格式之一：分钟、MM:SS、HH:MM:SS、D-HH、D-HH:MM、D-HH:MM:SS 或 UNLIMITED（最多 {minutes} 分钟），实际为“{value}”</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="375"/>
        <source>may hold only letters, digits and _ - . , got &apos;{value}&apos;</source>
        <translation>只能包含字母、数字和 _ - . ,，实际为“{value}”</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="376"/>
        <source>cluster &apos;{name}&apos;: the dataset {dataset} is not under {from} (the folder the profile maps to {remote} on the cluster)</source>
        <translation>集群“{name}”：数据集 {dataset} 不在 {from} 之下（该配置映射到集群上 {remote} 的文件夹）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="377"/>
        <source>cluster &apos;{name}&apos;: where the cluster&apos;s nodes see the dataset is not said: give its data.yaml on the cluster (dataset_on_cluster) or a folder mapping (dataset_local → dataset_remote)</source>
        <translation>集群“{name}”：未说明集群节点在哪里看到数据集：请给出集群上数据集的 data.yaml（dataset_on_cluster），或文件夹映射（dataset_local → dataset_remote）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="378"/>
        <source>not JSON: {detail}</source>
        <translation>不是 JSON：{detail}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="379"/>
        <source>expected an object with a list &apos;clusters&apos;</source>
        <translation>应为含有列表 &apos;clusters&apos; 的对象</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="380"/>
        <source>expected an object</source>
        <translation>应为对象</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="381"/>
        <source>expected a string</source>
        <translation>应为字符串</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="382"/>
        <source>expected a whole number</source>
        <translation>应为整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="383"/>
        <source>&apos;{name}&apos; is given to two profiles</source>
        <translation>“{name}”被用于两个配置</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="384"/>
        <source>given to two profiles</source>
        <translation>被用于两个配置</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="385"/>
        <source>no cluster profile &apos;{name}&apos; ({known})</source>
        <translation>没有名为“{name}”的集群配置（{known}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="386"/>
        <source>the file has none</source>
        <translation>文件中没有任何配置</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="387"/>
        <source>there are: {names}</source>
        <translation>现有：{names}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="388"/>
        <source>cluster &apos;{name}&apos; is not reached over SSH</source>
        <translation>集群“{name}”不是通过 SSH 访问的</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="389"/>
        <source>Slurm job {job} is {state}; a run is resumed once its job has ended</source>
        <translation>Slurm 作业 {job} 状态为 {state}；作业结束后才能恢复运行</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="390"/>
        <source>not ended</source>
        <translation>未结束</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="391"/>
        <source>whether Slurm job {job} has ended is not known, so the run is not resumed: {reason}</source>
        <translation>无法确定 Slurm 作业 {job} 是否已结束，因此不恢复该运行：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="392"/>
        <source>the run has no config.yaml (its job never started training, or it was not mirrored yet: `stave-train cluster follow` copies it); run the config again instead</source>
        <translation>该运行没有 config.yaml（它的作业从未开始训练，或尚未镜像到本机：`stave-train cluster follow` 会复制它）；请改为重新运行该配置</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="393"/>
        <source>the cluster has no partition {partition} (it has {partitions}); change the partition in Settings ▸ Clusters</source>
        <translation>集群没有分区 {partition}（现有：{partitions}）；请在 设置 ▸ 集群 中更改分区</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="394"/>
        <source>profile {profile} asks for {cpus} CPUs per node ({per_rank} per rank × {ranks} rank(s) per node), but the nodes of partition {partition} have at most {offer}: Slurm would leave the job pending (PartitionConfig) for ever. Lower CPUs per rank in Settings ▸ Clusters (its default is the config&apos;s workers + 2), or the workers</source>
        <translation>配置 {profile} 每个节点申请 {cpus} 个 CPU（每个 rank {per_rank} 个 × 每个节点 {ranks} 个 rank），但分区 {partition} 的节点最多只有 {offer} 个：Slurm 会让作业一直处于等待状态（PartitionConfig）。请在 设置 ▸ 集群 中减少每个 rank 的 CPU 数（默认为配置的 workers + 2），或减少 workers</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="395"/>
        <source>profile {profile} asks for {gpus} GPU(s) per node, but the nodes of partition {partition} have {offer}</source>
        <translation>配置 {profile} 每个节点申请 {gpus} 块 GPU，但分区 {partition} 的节点只有 {offer} 块</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="396"/>
        <source>profile {profile} asks for {nodes} nodes, but partition {partition} has {offer}</source>
        <translation>配置 {profile} 申请 {nodes} 个节点，但分区 {partition} 只有 {offer} 个</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="510"/>
        <source>{rank} waits for data {share} of its step</source>
        <translation>{rank} 每步有 {share} 的时间等待数据</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="511"/>
        <source>{rank} waits for host-to-device copies {share} of its step</source>
        <translation>{rank} 每步有 {share} 的时间等待主机到设备的拷贝</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="512"/>
        <source>{rank} waits in all-reduce {share} of its step</source>
        <translation>{rank} 每步有 {share} 的时间在 all-reduce 中等待</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="513"/>
        <source>{rank} spends {share} of its step in forward+backward</source>
        <translation>{rank} 每步有 {share} 的时间用于前向和反向传播</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="514"/>
        <source>{rank} spends {share} of its step in the optimiser</source>
        <translation>{rank} 每步有 {share} 的时间用于优化器</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="515"/>
        <source>; other ranks {share}</source>
        <translation>；其他 rank 为 {share}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="397"/>
        <source>{path}: cannot be opened ({reason})</source>
        <translation>{path}：无法打开（{reason}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="398"/>
        <source>{path}: cannot be locked ({reason})</source>
        <translation>{path}：无法加锁（{reason}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="399"/>
        <source>{dir} is being resubmitted already (another `stave-train cluster resume` or studio holds {path}); its job is the run&apos;s</source>
        <translation>{dir} 已在重新提交中（另一个 `stave-train cluster resume` 或工作室持有 {path}）；该运行的作业以它为准</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="400"/>
        <source>not a run on a cluster behind SSH</source>
        <translation>不是通过 SSH 连接的集群上的运行</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="401"/>
        <source>already exists</source>
        <translation>已存在</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="402"/>
        <source>the run folder {folder} cannot be made on {destination}: {said}</source>
        <translation>无法在 {destination} 上创建运行文件夹 {folder}：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="403"/>
        <source>job.sbatch cannot be written into {folder} on {destination}: {said}</source>
        <translation>无法将 job.sbatch 写入 {destination} 上的 {folder}：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="404"/>
        <source>Slurm job {job} of this run folder ({name}) is {state} on {profile}: a run folder is given to one job at a time; stop it (stave-train cluster stop) or let it end, then resume</source>
        <translation>此运行文件夹的 Slurm 作业 {job}（{name}）在 {profile} 上状态为 {state}：一个运行文件夹同一时间只交给一个作业；请停止它（stave-train cluster stop）或等它结束，再恢复</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="405"/>
        <source>{folder}/run.lock names Slurm job {job}, which is still {state} on {profile}: a run folder is given to one job at a time; stop it or let it end, then resume</source>
        <translation>{folder}/run.lock 记录的 Slurm 作业 {job} 在 {profile} 上仍为 {state}：一个运行文件夹同一时间只交给一个作业；请停止它或等它结束，再恢复</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="406"/>
        <source>another submission for {folder} on {profile} has held its lock (.stave_submit.lock) for over a minute; nothing was submitted</source>
        <translation>{profile} 上 {folder} 的另一次提交持有其锁（.stave_submit.lock）已超过一分钟；未提交任何作业</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="407"/>
        <source>Slurm on {profile} cannot be asked whether a job of this run is already pending or running (squeue: {said}); nothing was submitted</source>
        <translation>无法向 {profile} 上的 Slurm 询问此运行是否已有排队或运行中的作业（squeue：{said}）；未提交任何作业</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="408"/>
        <source>the cluster &apos;{profile}&apos; refused the job: {said}</source>
        <translation>集群“{profile}”拒绝了该作业：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="409"/>
        <source>sbatch printed no job id: {out}</source>
        <translation>sbatch 没有输出作业 ID：{out}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="410"/>
        <source>; looking the job up: {reason}</source>
        <translation>；查找该作业时：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="411"/>
        <source>; sent again: {reason}</source>
        <translation>；再次发送时：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="412"/>
        <source>sbatch&apos;s answer was lost ({lost}); the job may run: the run folder {dir} is kept, and `stave-train cluster status` looks the job up by its name ({job}) once {destination} answers</source>
        <translation>sbatch 的回答丢失了（{lost}）；作业可能正在运行：运行文件夹 {dir} 已保留，{destination} 恢复应答后，`stave-train cluster status` 会按作业名（{job}）查找该作业</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="413"/>
        <source>{command} ({how}): {said}</source>
        <translation>{command}（{how}）：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="414"/>
        <source>no message</source>
        <translation>无输出</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="415"/>
        <source>&apos;{id}&apos; is not a Slurm job id; Slurm was not asked</source>
        <translation>“{id}”不是 Slurm 作业 ID；未询问 Slurm</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="416"/>
        <source>&apos;{id}&apos; is not a Slurm job id; nothing was cancelled</source>
        <translation>“{id}”不是 Slurm 作业 ID；未取消任何作业</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="417"/>
        <source>no Slurm command on {destination} knows job {job}: {squeue}; {sacct}; {scontrol}</source>
        <translation>{destination} 上没有 Slurm 命令知道作业 {job}：{squeue}；{sacct}；{scontrol}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="418"/>
        <source>{squeue}; {sacct}</source>
        <translation>{squeue}；{sacct}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="419"/>
        <source>not started: {reason}</source>
        <translation>未能启动：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="420"/>
        <source>exit {code}</source>
        <translation>退出码 {code}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="421"/>
        <source>killed by {signal}</source>
        <translation>被 {signal} 终止</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="422"/>
        <source>ended: too much output</source>
        <translation>已结束：输出过多</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="423"/>
        <source>timed out</source>
        <translation>超时</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="424"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="425"/>
        <source>ssh {destination}</source>
        <translation>ssh {destination}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="426"/>
        <source>ssh {destination} (port {port})</source>
        <translation>ssh {destination}（端口 {port}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="427"/>
        <source>{who}: the cluster&apos;s host key has CHANGED since it was recorded in known_hosts; OpenSSH refused the connection and nothing was sent. If the cluster&apos;s administrators changed its key, remove the old one (ssh-keygen -R HOST) and connect once in a terminal to check the new one. OpenSSH said:{said}</source>
        <translation>{who}：集群的主机密钥自记入 known_hosts 以来已经改变；OpenSSH 拒绝了连接，未发送任何内容。如果是集群管理员更换了密钥，请删除旧密钥（ssh-keygen -R HOST），并在终端中连接一次以核对新密钥。OpenSSH 的原话：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="428"/>
        <source>{who}: the cluster&apos;s host key is not in known_hosts, and it is not accepted unasked; connect once in a terminal (ssh {destination}) and check the key it shows. OpenSSH said:{said}</source>
        <translation>{who}：集群的主机密钥不在 known_hosts 中，且不会未经确认就被接受；请在终端中连接一次（ssh {destination}）并核对显示的密钥。OpenSSH 的原话：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="429"/>
        <source>{who}: the cluster refused every key offered (no password is asked: BatchMode). Load your key into the agent (ssh-add), or name it with IdentityFile in ~/.ssh/config, and check that `ssh {destination} true` works in a terminal without a prompt. OpenSSH said:{said}</source>
        <translation>{who}：集群拒绝了提供的所有密钥（不会询问密码：BatchMode）。请将密钥加载到 agent（ssh-add），或在 ~/.ssh/config 中用 IdentityFile 指定它，并确认 `ssh {destination} true` 在终端中无需提示即可运行。OpenSSH 的原话：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="430"/>
        <source>{who}: the cluster cannot be reached now (tried again later). OpenSSH said:{said}</source>
        <translation>{who}：目前无法连到集群（稍后会重试）。OpenSSH 的原话：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="431"/>
        <source>{who}: the OpenSSH client could not be started ({reason}); install openssh-client</source>
        <translation>{who}：无法启动 OpenSSH 客户端（{reason}）；请安装 openssh-client</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="432"/>
        <source>{who}: ssh failed ({how}). OpenSSH said:{said}</source>
        <translation>{who}：ssh 失败（{how}）。OpenSSH 的原话：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="433"/>
        <source>ssh: {problem}</source>
        <translation>ssh：{problem}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="434"/>
        <source>ssh {destination}: no answer within {seconds} s</source>
        <translation>ssh {destination}：{seconds} 秒内无应答</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="435"/>
        <source>the run folder {folder} on the cluster cannot be read ({how}): {said}</source>
        <translation>无法读取集群上的运行文件夹 {folder}（{how}）：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="436"/>
        <source>the cluster&apos;s answer about {folder} was cut short</source>
        <translation>集群关于 {folder} 的回答被截断了</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="437"/>
        <source>the mirror&apos;s {file} ({offset} bytes) is longer than the cluster&apos;s ({size}): the run folder on the cluster was replaced</source>
        <translation>镜像中的 {file}（{offset} 字节）比集群上的（{size}）更长：集群上的运行文件夹已被替换</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="438"/>
        <source>{path}: cannot be written ({reason})</source>
        <translation>{path}：无法写入（{reason}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="439"/>
        <source>&apos;{file}&apos; is not a file of the run folder</source>
        <translation>“{file}”不是运行文件夹中的文件</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="440"/>
        <source>{file} cannot be read on the cluster ({how}): {said}</source>
        <translation>无法在集群上读取 {file}（{how}）：{said}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="502"/>
        <source>NVML not found (no NVIDIA driver?): {reason}</source>
        <translation>未找到 NVML（没有 NVIDIA 驱动？）：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="503"/>
        <source>{path} could not be loaded</source>
        <translation>无法加载 {path}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="504"/>
        <source>{path} lacks nvmlInit/nvmlDeviceGetCount (too old a driver?)</source>
        <translation>{path} 缺少 nvmlInit/nvmlDeviceGetCount（驱动太旧？）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="505"/>
        <source>nvmlInit failed: {reason}</source>
        <translation>nvmlInit 失败：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="506"/>
        <source>nvmlDeviceGetCount failed: {reason}</source>
        <translation>nvmlDeviceGetCount 失败：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="507"/>
        <source>NVML lists no device</source>
        <translation>NVML 未列出任何设备</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="459"/>
        <source> (listed in {file}:{line})</source>
        <translation>（列于 {file}:{line}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="441"/>
        <source>column {column} is not a number: &apos;{value}&apos;</source>
        <translation>第 {column} 列不是数字：“{value}”</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="442"/>
        <source>row has {count} columns; expected 5 (cls cx cy w h) or an odd number &gt;= 7 (cls x1 y1 ... polygon)</source>
        <translation>该行有 {count} 列；应为 5 列（cls cx cy w h）或不少于 7 的奇数列（cls x1 y1 ... 多边形）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="443"/>
        <source>row contains NaN or infinity</source>
        <translation>该行包含 NaN 或无穷大</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="444"/>
        <source>class id {id} is outside [0, {last}] (nc {nc})</source>
        <translation>类别编号 {id} 超出 [0, {last}]（nc {nc}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="445"/>
        <source>box width and height must be &gt; 0 (w {w}, h {h})</source>
        <translation>框的宽和高必须大于 0（w {w}，h {h}）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="446"/>
        <source>box [{left}, {top}, {right}, {bottom}] reaches outside the image; normalised coordinates must lie in [0, 1]</source>
        <translation>框 [{left}, {top}, {right}, {bottom}] 超出了图像；归一化坐标必须在 [0, 1] 内</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="447"/>
        <source>box has zero area</source>
        <translation>框的面积为零</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="448"/>
        <source>duplicate of an earlier row</source>
        <translation>与前面的某行重复</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="449"/>
        <source>symbolic link to a file that does not exist: {target}</source>
        <translation>符号链接指向不存在的文件：{target}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="450"/>
        <source>the {format} file ends before its end marker (cut-off copy?)</source>
        <translation>该 {format} 文件在结束标记之前就结束了（复制不完整？）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="451"/>
        <source>{width}x{height} pixels exceeds the limit of {max} pixels</source>
        <translation>{width}x{height} 像素超过了 {max} 像素的上限</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="452"/>
        <source>the header says {width}x{height} pixels but the file holds only {bytes} bytes (a damaged or crafted header?)</source>
        <translation>文件头声称 {width}x{height} 像素，但文件只有 {bytes} 字节（文件头损坏或被篡改？）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="453"/>
        <source>full decode failed (--verify)</source>
        <translation>完整解码失败（--verify）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="454"/>
        <source>full decode failed (--verify): {reason}</source>
        <translation>完整解码失败（--verify）：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="455"/>
        <source>decoded size differs from the header</source>
        <translation>解码后的尺寸与文件头不符</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="456"/>
        <source>image listed twice: {path} (the copy is ignored)</source>
        <translation>图像被列出两次：{path}（忽略重复的一项）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="457"/>
        <source>label folder does not exist: {count} images there are treated as background (no objects)</source>
        <translation>标签文件夹不存在：其中的 {count} 张图像按背景处理（无目标）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="458"/>
        <source>label file without an image in this split</source>
        <translation>标签文件在此划分中没有对应的图像</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="463"/>
        <source>split &apos;{split}&apos; has no usable images ({count} entries found)</source>
        <translation>划分“{split}”没有可用的图像（找到 {count} 项）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="464"/>
        <source>corrupt JPEG marker stream</source>
        <translation>JPEG 标记流已损坏</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="465"/>
        <source>corrupt JPEG segment length</source>
        <translation>JPEG 段长度已损坏</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="466"/>
        <source>JPEG header has zero size</source>
        <translation>JPEG 文件头中的尺寸为零</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="467"/>
        <source>JPEG header incomplete (truncated file?)</source>
        <translation>JPEG 文件头不完整（文件被截断？）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="468"/>
        <source>PNG header incomplete</source>
        <translation>PNG 文件头不完整</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="469"/>
        <source>PNG header has zero or negative size</source>
        <translation>PNG 文件头中的尺寸为零或负数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="470"/>
        <source>BMP header incomplete</source>
        <translation>BMP 文件头不完整</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="471"/>
        <source>BMP header has zero or negative size</source>
        <translation>BMP 文件头中的尺寸为零或负数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="472"/>
        <source>empty file (0 bytes)</source>
        <translation>空文件（0 字节）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="473"/>
        <source>not a recognised image header</source>
        <translation>不是可识别的图像文件头</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="474"/>
        <source>cannot open file</source>
        <translation>无法打开文件</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="475"/>
        <source>not a readable image</source>
        <translation>不是可读取的图像</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="476"/>
        <source>cannot open the edit lock: {reason}</source>
        <translation>无法打开编辑锁：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="477"/>
        <source>another program has held the dataset&apos;s edit lock for 10 s; try again</source>
        <translation>另一个程序持有该数据集的编辑锁已达 10 秒；请重试</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="478"/>
        <source>absent</source>
        <translation>不存在</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="480"/>
        <source>the dataset cannot be written here (a file, not a folder); the edits are not saved</source>
        <translation>无法在此处写入数据集（这里是文件，不是文件夹）；编辑未保存</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="481"/>
        <source>the dataset cannot be written here ({reason}); the edits are not saved</source>
        <translation>无法在此处写入数据集（{reason}）；编辑未保存</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="482"/>
        <source>cannot create the dataset&apos;s history folder: {reason}</source>
        <translation>无法创建数据集的历史文件夹：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="483"/>
        <source>cannot open the edit log: {reason}</source>
        <translation>无法打开编辑日志：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="484"/>
        <source>cannot append to the edit log: {reason}</source>
        <translation>无法追加到编辑日志：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="485"/>
        <source>fsync of the edit log failed: {reason}</source>
        <translation>编辑日志的 fsync 失败：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="486"/>
        <source>changed on disk since it was read (then {then}, now {now}), by another program or studio; not overwritten — reload it</source>
        <translation>读取之后已在磁盘上被另一个程序或工作室修改（当时 {then}，现在 {now}）；未覆盖——请重新加载</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="487"/>
        <source>cannot remove: {reason}</source>
        <translation>无法删除：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="488"/>
        <source>not saved: {reason}</source>
        <translation>未保存：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="460"/>
        <source>cannot list folder: {reason}</source>
        <translation>无法列出文件夹：{reason}</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="461"/>
        <source>unknown split; expected train, val or test</source>
        <translation>未知的划分；应为 train、val 或 test</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="462"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="489"/>
        <source>not an issues CSV: the first line must be &apos;{header}&apos;</source>
        <translation>不是问题 CSV：第一行必须是“{header}”</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="490"/>
        <source>{why}; row skipped</source>
        <translation>{why}；已跳过该行</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="491"/>
        <source>expected 9 fields, got {count}</source>
        <translation>应有 9 个字段，实际为 {count} 个</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="492"/>
        <source>no image</source>
        <translation>没有图像</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="493"/>
        <source>kind &apos;{kind}&apos; is none of overlooked, swapped, badly_located, spurious</source>
        <translation>类型“{kind}”不是 overlooked、swapped、badly_located、spurious 之一</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="494"/>
        <source>a class is not a whole number &gt;= -1</source>
        <translation>某个类别不是大于等于 -1 的整数</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="495"/>
        <source>score or box is not a number</source>
        <translation>分数或框不是数字</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="496"/>
        <source>the image&apos;s size is unknown</source>
        <translation>图像尺寸未知</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="497"/>
        <source>the issue has no prediction to accept</source>
        <translation>该问题没有可接受的预测</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="498"/>
        <source>the issue names no label box</source>
        <translation>该问题没有指明标注框</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="499"/>
        <source>the issue has no other class to take</source>
        <translation>该问题没有可采用的其他类别</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="500"/>
        <source>the issue holds no predicted box to take</source>
        <translation>该问题没有可采用的预测框</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="501"/>
        <source>the label box of class {class} the issue names is no longer in the file (changed since the issues were found)</source>
        <translation>该问题指明的类别 {class} 的标注框已不在文件中（发现问题之后文件被修改了）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="508"/>
        <source>GPU {index} does not exist (NVML sees {count} devices)</source>
        <translation>GPU {index} 不存在（NVML 看到 {count} 个设备）</translation>
    </message>
    <message>
        <location filename="../core/studio/engine_strings.cpp" line="509"/>
        <source>no NVIDIA GPU: {reason}</source>
        <translation>没有 NVIDIA GPU：{reason}</translation>
    </message>
</context>
<context>
    <name>stave::studio</name>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="46"/>
        <source>Ultralytics&apos; default for a GPU, not above the images&apos; own size</source>
        <translation>Ultralytics 在 GPU 上的默认值，不超过图像本身的尺寸</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="47"/>
        <source>a CPU trains about 4x faster at 320 than at 640; not above the images&apos; own size</source>
        <translation>在 CPU 上以 320 训练比以 640 快约 4 倍；不超过图像本身的尺寸</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="52"/>
        <source>enough images for the small network on a GPU</source>
        <translation>图像足够多，可在 GPU 上训练 small 网络</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="53"/>
        <source>the nano network: fast to train, enough for this dataset or machine</source>
        <translation>nano 网络：训练快，对此数据集或本机已足够</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="64"/>
        <source>fits the smallest GPU&apos;s memory (%1 GiB) at this image size</source>
        <translation>在此图像尺寸下可放入显存最小的 GPU（%1 GiB）</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="66"/>
        <source>a CPU batch: larger ones are not faster per image</source>
        <translation>CPU 上的批量：更大的批量并不能让每张图像更快</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="71"/>
        <source>Ultralytics&apos; nominal batch</source>
        <translation>Ultralytics 的名义批量</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="72"/>
        <source>one optimiser step per batch: a short CPU run makes enough steps</source>
        <translation>每批执行一次优化器步：CPU 上的短时间运行也能有足够的步数</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="81"/>
        <source>Ultralytics&apos; default; fewer for a large dataset</source>
        <translation>Ultralytics 的默认值；数据集较大时减少</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="82"/>
        <source>about 5,000 images seen in all: minutes to an hour on a CPU</source>
        <translation>累计约见过 5,000 张图像：在 CPU 上需几分钟到一小时</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="85"/>
        <source>a tenth of a short run, at most Ultralytics&apos; 3</source>
        <translation>短时间运行的十分之一，最多为 Ultralytics 的 3 轮</translation>
    </message>
    <message>
        <location filename="../core/studio/project/settings_proposal.cpp" line="90"/>
        <source>%1 logical cores shared by %2 rank(s), one left for training</source>
        <translation>%1 个逻辑核心由 %2 个进程共用，留出一个用于训练</translation>
    </message>
</context>
<context>
    <name>stave::studio::AugmentPreview</name>
    <message>
        <location filename="../core/studio/models/augment_preview.cpp" line="20"/>
        <source>the train split has no usable images</source>
        <translation>训练划分没有可用的图像</translation>
    </message>
</context>
<context>
    <name>stave::studio::ClusterProfile</name>
    <message>
        <location filename="../core/studio/project/cluster_profile.cpp" line="94"/>
        <source>run folder</source>
        <translation>运行文件夹</translation>
    </message>
    <message>
        <location filename="../core/studio/project/cluster_profile.cpp" line="98"/>
        <source>Slurm commands</source>
        <translation>Slurm 命令</translation>
    </message>
</context>
<context>
    <name>stave::studio::GpuLeases</name>
    <message>
        <location filename="../core/studio/run/gpu_lease.cpp" line="109"/>
        <source>%1 is used by %2</source>
        <translation>%1 正被 %2 使用</translation>
    </message>
    <message>
        <location filename="../core/studio/run/gpu_lease.cpp" line="111"/>
        <source>the CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../core/studio/run/gpu_lease.cpp" line="128"/>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>stave::studio::Preflight</name>
    <message>
        <location filename="../core/studio/project/preflight.cpp" line="36"/>
        <source>%1: names lists no classes</source>
        <translation>%1：names 中没有列出任何类别</translation>
    </message>
    <message>
        <location filename="../core/studio/project/preflight.cpp" line="39"/>
        <source>only %1 MiB free on %2, where the run writes its checkpoints and events; a full disk stops the run</source>
        <translation>%2 上只剩 %1 MiB 可用空间，运行要在此写入检查点和事件；磁盘写满会使运行停止</translation>
    </message>
</context>
<context>
    <name>stave::studio::RecentSummary</name>
    <message>
        <location filename="../core/studio/models/recent_summary.cpp" line="32"/>
        <source>cannot be read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/models/recent_summary.cpp" line="34"/>
        <source>dataset %1</source>
        <translation>数据集 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/models/recent_summary.cpp" line="44"/>
        <source> · no runs yet</source>
        <translation> · 尚无运行</translation>
    </message>
    <message>
        <location filename="../core/studio/models/recent_summary.cpp" line="49"/>
        <source> · last run %1 (%2 epochs, %3)</source>
        <translation> · 最近一次运行 %1（%2 轮，%3）</translation>
    </message>
</context>
<context>
    <name>stave::studio::RunTimes</name>
    <message>
        <location filename="../core/studio/models/history_model.cpp" line="55"/>
        <location filename="../core/studio/run_times.cpp" line="11"/>
        <location filename="../core/studio/run_times.cpp" line="12"/>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <location filename="../core/studio/run_times.cpp" line="14"/>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <location filename="../core/studio/run_times.cpp" line="15"/>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <location filename="../core/studio/run_times.cpp" line="30"/>
        <source>training %1, validation %2</source>
        <translation>训练 %1，验证 %2</translation>
    </message>
    <message>
        <location filename="../core/studio/run_times.cpp" line="34"/>
        <location filename="../core/studio/run_times.cpp" line="35"/>
        <source>?</source>
        <translation>?</translation>
    </message>
    <message>
        <location filename="../core/studio/run_times.cpp" line="37"/>
        <source>%1 in %2 sessions (training %3, validation %4)</source>
        <translation>%1，共 %2 个会话（训练 %3，验证 %4）</translation>
    </message>
</context>
<context>
    <name>stave::studio::SlurmJob</name>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="52"/>
        <source>%1 (exit %2): %3</source>
        <translation>%1（退出码 %2）：%3</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="52"/>
        <source>no message</source>
        <translation>没有消息</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="123"/>
        <source>%1: not a JSON object (%2 at byte %3)</source>
        <translation>%1：不是 JSON 对象（第 %3 字节处：%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="129"/>
        <source>%1: job_id: expected the job&apos;s id as a string</source>
        <translation>%1：job_id：应为字符串形式的作业 ID</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="137"/>
        <source>%1: job_id: &apos;%2&apos; is not a Slurm job id (digits, with _N or +N)</source>
        <translation>%1：job_id：“%2”不是 Slurm 作业 ID（数字，可带 _N 或 +N）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="143"/>
        <source>%1: job_ids: &apos;%2&apos; is not a Slurm job id (digits, with _N or +N)</source>
        <translation>%1：job_ids：“%2”不是 Slurm 作业 ID（数字，可带 _N 或 +N）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="177"/>
        <source>%1: cannot be written (%2)</source>
        <translation>%1：无法写入（%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="208"/>
        <source>&apos;%1&apos; is not a Slurm job id; Slurm was not asked</source>
        <translation>“%1”不是 Slurm 作业 ID；未向 Slurm 查询</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="243"/>
        <source>no Slurm command knows job %1: %2; %3; %4</source>
        <translation>没有任何 Slurm 命令知道作业 %1：%2；%3；%4</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="262"/>
        <source>%1: cannot be opened (%2)</source>
        <translation>%1：无法打开（%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="266"/>
        <source>%1 is being resubmitted already (by another window or studio); its record keeps the job that one sends</source>
        <translation>%1 已在重新提交中（由另一个窗口或另一个 Studio）；其记录将保存那次提交的作业</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="269"/>
        <source>%1: cannot be locked (%2)</source>
        <translation>%1：无法加锁（%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="311"/>
        <source>sbatch gave no answer for this run&apos;s job, and Slurm lists no job named %1 yet; the run folder %2 is kept while it is looked for (squeue --name=%1)</source>
        <translation>sbatch 没有返回此运行的作业，Slurm 中也还没有名为 %1 的作业；查找期间保留运行文件夹 %2（squeue --name=%1）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="378"/>
        <location filename="../core/studio/run/slurm_job.cpp" line="385"/>
        <source>%1 already exists</source>
        <translation>%1 已存在</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="381"/>
        <source>%1: cannot be made</source>
        <translation>%1：无法创建</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="387"/>
        <source>%1: cannot be made (is the cluster&apos;s run folder %2 mounted and writable?)</source>
        <translation>%1：无法创建（集群的运行文件夹 %2 是否已挂载且可写？）</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="392"/>
        <source>%1: cannot link it to %2</source>
        <translation>%1：无法将其链接到 %2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="541"/>
        <source>%1: its last submission (a job named %2) is not known to Slurm yet and may still start; it is resumed once that job has ended, or when none has appeared 10 minutes after it was sent</source>
        <translation>%1：它上次提交的作业（名为 %2）Slurm 尚不知道，可能仍会启动；待该作业结束后，或提交 10 分钟后仍未出现时，才会恢复该运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="553"/>
        <source>Slurm job %1 of %2 is %3; a run is resumed once its job has ended</source>
        <translation>%2 的 Slurm 作业 %1 状态为 %3；作业结束后才能恢复运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="554"/>
        <source>not ended</source>
        <translation>未结束</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="555"/>
        <source>%1: whether Slurm job %2 has ended is not known, so the run is not resumed: %3</source>
        <translation>%1：无法确定 Slurm 作业 %2 是否已结束，因此不恢复该运行：%3</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="562"/>
        <source>%1 has no config.yaml: its job never started training; run the config again instead</source>
        <translation>%1 没有 config.yaml：它的作业从未开始训练；请改为重新运行该配置</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="611"/>
        <source>the cluster &apos;%1&apos; refused the job: %2</source>
        <translation>集群“%1”拒绝了该作业：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="612"/>
        <source>the job could not be sent to the cluster &apos;%1&apos;: %2</source>
        <translation>无法将作业发送到集群“%1”：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="622"/>
        <source>sbatch&apos;s answer was lost (%1); the job may have been accepted, so the run folder %2 is kept and Slurm is asked for a job named %3 (squeue --name=%3). If none appears, start the run again.</source>
        <translation>sbatch 的应答丢失了（%1）；作业可能已被接受，因此保留运行文件夹 %2，并向 Slurm 查询名为 %3 的作业（squeue --name=%3）。如果一直没有出现，请重新开始该运行。</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="625"/>
        <location filename="../core/studio/run/slurm_job.cpp" line="628"/>
        <source>no job id</source>
        <translation>没有作业 ID</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="627"/>
        <source>sbatch&apos;s answer was lost (%1); Slurm lists the job by its name: job %2</source>
        <translation>sbatch 的应答丢失了（%1）；Slurm 按名称找到了该作业：作业 %2</translation>
    </message>
    <message>
        <location filename="../core/studio/run/slurm_job.cpp" line="655"/>
        <source>&apos;%1&apos; is not a Slurm job id; nothing was cancelled</source>
        <translation>“%1”不是 Slurm 作业 ID；没有取消任何作业</translation>
    </message>
</context>
<context>
    <name>stave::studio::ValidationData</name>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="41"/>
        <source>%1: line %2: %3%4</source>
        <translation>%1：第 %2 行：%3%4</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="46"/>
        <source>key %1: </source>
        <translation>键 %1：</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="53"/>
        <source>%1: not a JSON object</source>
        <translation>%1：不是 JSON 对象</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="70"/>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="73"/>
        <source>has the wrong type (%1)</source>
        <translation>类型不对（%1）</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="82"/>
        <source>is not a number</source>
        <translation>不是数字</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="86"/>
        <source>is not finite</source>
        <translation>不是有限值</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="109"/>
        <source>has %1 rows for %2 names</source>
        <translation>有 %1 行，而类别名有 %2 个</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="116"/>
        <source>is not a row of %1 numbers</source>
        <translation>不是一行 %1 个数字</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="128"/>
        <location filename="../core/studio/models/validation_data.cpp" line="155"/>
        <location filename="../core/studio/models/validation_data.cpp" line="193"/>
        <location filename="../core/studio/models/validation_data.cpp" line="228"/>
        <source>is not an object</source>
        <translation>不是对象</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="133"/>
        <source>names a cell outside the %1×%1 matrix</source>
        <translation>指向了 %1×%1 矩阵之外的单元格</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="169"/>
        <source>curves are not as long as conf (%1 points)</source>
        <translation>曲线与 conf 的长度不同（%1 个点）</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="174"/>
        <source>is not as long as recall (%1 points)</source>
        <translation>与 recall 的长度不同（%1 个点）</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="188"/>
        <source>is not a split index</source>
        <translation>不是划分编号</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="205"/>
        <source>is not a list of %1 numbers</source>
        <translation>不是 %1 个数字的列表</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="238"/>
        <source>points outside the folder</source>
        <translation>指向文件夹之外</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="283"/>
        <source>%1: line %2: expected class,name,images,instances,precision,recall,mAP50,mAP50-95</source>
        <translation>%1：第 %2 行：应为 class,name,images,instances,precision,recall,mAP50,mAP50-95</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="392"/>
        <source>%1: missing</source>
        <translation>%1：缺失</translation>
    </message>
    <message>
        <location filename="../core/studio/models/validation_data.cpp" line="407"/>
        <source>%1: key %2 %3</source>
        <translation>%1：键 %2 %3</translation>
    </message>
</context>
</TS>
