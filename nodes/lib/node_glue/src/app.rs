//! [`App`]: context + node + tokio runtime + parameters + clean shutdown.
use crate::params::Declared;
use glue_core::ConfigError;
use r2r::RosParams;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// A set-up failure of a node (before it spins). Every variant is typed; its `Display`
/// is the reason in the line the node exits with (`<node>: cannot start: <reason>`).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// rcl/r2r refused something (context, node, entity creation).
    #[error("ROS: {0}")]
    Ros(r2r::Error),
    /// A parameter was given with the wrong type or an invalid value.
    #[error("parameter: {0}")]
    Parameter(#[from] ParameterError),
    /// A setting the node's checks refused (shown like [`Error::Parameter`]).
    #[error("parameter: {0}")]
    Config(#[from] ConfigError),
    /// The OS refused what set-up needed (the runtime's threads, ...).
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The parameter table's lock was poisoned (a thread panicked holding it).
    #[error("parameter table poisoned")]
    Poisoned,
    /// The node's own set-up error: its enum (a file that does not load, a socket that
    /// cannot be bound ...), shown as it is. Made with [`Error::node`].
    #[error("{0}")]
    Node(Box<dyn std::error::Error + Send + Sync>),
}

impl Error {
    /// The node's own error `e` (its `ros::SetupError`), carried as it is.
    pub fn node(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Error::Node(Box::new(e))
    }
}

/// Why a parameter cannot be used (shown after `parameter: `).
#[derive(Debug, thiserror::Error)]
pub enum ParameterError {
    /// r2r refused it (wrong type, value, name).
    #[error("{0}")]
    Ros(r2r::Error),
    /// `-p name:=` with nothing after `:=`.
    #[error("`-p {0}:=` has no value (for an empty string write {0}:='')")]
    NoValue(String),
    /// A `-p` argument without `:=`.
    #[error("`-p {0}` is not of the form name:=value")]
    NotNameValue(String),
    /// A value given at start, for this node alone, that it does not declare.
    #[error(
        "{node} has no parameter {name:?} (given under the key {key:?}); its parameters: {}",
        declared.join(", ")
    )]
    Undeclared {
        /// The node's fully qualified name.
        node: String,
        /// The parameter given.
        name: String,
        /// The key of the parameter file (or `/**` for `-p`) it was given under.
        key: String,
        /// The node's parameters, sorted.
        declared: Vec<&'static str>,
    },
    /// `managed` given with a type other than bool.
    #[error("managed must be true or false, not {0:?}")]
    Managed(r2r::ParameterValue),
    /// `use_sim_time` given with a type other than bool.
    #[error("use_sim_time must be true or false, not {0:?}")]
    UseSimTime(r2r::ParameterValue),
    /// rcl's parse of the values given at start refused them (rcl's words).
    #[error("{0}")]
    Given(#[from] crate::params::overrides::GivenError),
    /// A declaration or the node's rules refused a value at start (their words).
    #[error("{0}")]
    Refused(#[from] crate::params::Refusal),
    /// The node's own check of its parameters refused them (its error, shown as it is).
    #[error("{0}")]
    Node(Box<dyn std::error::Error + Send + Sync>),
}

impl ParameterError {
    /// The node's own check error `e`, carried as it is.
    pub fn node(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        ParameterError::Node(Box::new(e))
    }
}

impl From<r2r::Error> for Error {
    fn from(e: r2r::Error) -> Self {
        match e {
            r2r::Error::ParameterWrongType { .. }
            | r2r::Error::InvalidParameterType { .. }
            | r2r::Error::ParameterValueConv { .. }
            | r2r::Error::InvalidParameterName { .. } => Error::Parameter(ParameterError::Ros(e)),
            e => Error::Ros(e),
        }
    }
}

impl<T> From<std::sync::PoisonError<T>> for Error {
    fn from(_: std::sync::PoisonError<T>) -> Self {
        Error::Poisoned
    }
}

/// A cloneable "the node is shutting down" signal for tasks.
#[derive(Clone)]
pub struct Shutdown(Vec<watch::Receiver<bool>>);

impl Shutdown {
    /// Resolves once shutdown was requested (SIGINT, SIGTERM or [`App::request_shutdown`]),
    /// or, for a [`Shutdown::child`], its own stop.
    pub async fn wait(&self) {
        let waits = self.0.iter().map(|rx| {
            let mut rx = rx.clone();
            // An error means the sender is gone: that is a shutdown too.
            Box::pin(async move {
                let _ = rx.wait_for(|down| *down).await;
            })
        });
        futures::future::select_all(waits).await;
    }
    /// True once shutdown was requested.
    pub fn is_set(&self) -> bool {
        self.0.iter().any(|rx| *rx.borrow())
    }
    /// A signal for a group of tasks that stop with the node or on their own, when the
    /// returned [`Stop`] is called (a managed node's tasks that live from configure to
    /// cleanup).
    pub fn child(&self) -> (Stop, Shutdown) {
        let (tx, rx) = watch::channel(false);
        let mut all = self.0.clone();
        all.push(rx);
        (Stop(Arc::new(tx)), Shutdown(all))
    }
}

/// Stops the tasks of a [`Shutdown::child`] (idempotent; dropping it stops them too).
#[derive(Clone)]
pub struct Stop(Arc<watch::Sender<bool>>);

impl Stop {
    /// Stops them.
    pub fn stop(&self) {
        let _ = self.0.send(true);
    }
}

/// Held by a task that has work to do when the node stops (a last command, a hold):
/// [`App::spin`] waits, spinning, until every one is dropped (at most
/// [`FINISH_LIMIT`]) before it stops the runtime, which would cancel the task. Without
/// it a task that a loaded machine schedules late never runs its shutdown branch.
#[derive(Clone)]
pub struct Finishing(#[allow(dead_code)] Arc<()>);

/// How long [`App::spin`] waits for the [`Finishing`] tasks (within the teardown limit
/// of [`crate::exit`]).
pub const FINISH_LIMIT: Duration = Duration::from_millis(1500);

/// One ROS node with its runtime. Create entities on `node`, spawn tasks with
/// `runtime().spawn` (or `tokio::spawn` inside them), then call [`App::spin`].
pub struct App {
    /// The node. Create every entity before [`App::spin`] moves it to the spin loop.
    pub node: r2r::Node,
    /// The node's name as launched (the default, or `__node:=` / a launch file's name=).
    name: String,
    /// The fully qualified name (`/left/brain`): diagnostics status names use it.
    fqn: String,
    /// The parameter values given at start for this node ([`crate::params::overrides`]).
    given: Vec<crate::params::overrides::Given>,
    runtime: tokio::runtime::Runtime,
    shutdown_tx: Arc<watch::Sender<bool>>,
    qos_watch: crate::qos_check::QosWatch,
    param_counters: Arc<crate::params::ParamCounters>,
    finishing: Arc<()>,
    /// The node's lifecycle, once [`App::lifecycle`] made it (a managed node).
    lifecycle: Option<crate::lifecycle::Lifecycle>,
}

impl App {
    /// Creates the context (reading `--ros-args` from the command line: `-p`,
    /// `--params-file`, remaps), the node and a two-worker tokio runtime.
    pub fn new(name: &str) -> Result<App, Error> {
        App::with_sim_time(name, false)
    }

    /// [`App::new`], on sim time (`/clock`) when `force_sim_time` even without
    /// `-p use_sim_time:=true`: for tools whose own command line has the switch
    /// (`arnie_bag record --use-sim-time`, as `ros2 bag record`). The parameter then
    /// reads `true`.
    pub fn with_sim_time(name: &str, force_sim_time: bool) -> Result<App, Error> {
        keep_libpython();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .thread_name(format!("{name}-rt"))
            .build()?;
        crate::log::set_fallback(name);
        check_ros_args(std::env::args())?;
        // rcl's own parse of the command line first: a bad `--log-level`, a params file
        // that does not parse ... is reported with rcl's words (r2r would only say
        // RCL_RET_ERROR).
        let keys = crate::params::overrides::from_command_line().map_err(ParameterError::Given)?;
        let ctx = r2r::Context::create()?;
        let mut node = r2r::Node::create(ctx, name, "")?;
        // From here every line goes under the node's logger name and to /rosout.
        crate::log::attach(&mut node)?;
        // The node's identity as launched (`__node:=`, `__ns:=`, a launch file's name=).
        let actual = node.name()?;
        let fqn = node.fully_qualified_name()?;
        // Every parameter file must apply to this node through one of its keys.
        let files = crate::params::overrides::params_files(std::env::args());
        for (file, key) in crate::params::overrides::check_files_apply(&files, &fqn)
            .map_err(ParameterError::Given)?
        {
            crate::log_info!(
                "{file}: key {key} does not apply to {fqn}: its values are not this node's"
            );
        }
        // The values given at start, matched to this node as rclcpp matches them.
        let given = crate::params::overrides::resolve(&keys, &fqn);
        {
            let mut table = node.params.lock()?;
            table.clear();
            for g in &given {
                table.insert(g.name.clone(), r2r::Parameter::new(g.value.clone()));
            }
        }
        crate::log_debug!(
            "node {fqn}: logger {}, {} value(s) given at start",
            crate::log::logger(),
            given.len()
        );
        let sim = use_sim_time(&node)? || force_sim_time;
        if force_sim_time {
            if let Ok(mut params) = node.params.lock() {
                if let Some(p) = params.get_mut(crate::params::USE_SIM_TIME) {
                    p.value = r2r::ParameterValue::Bool(true);
                }
            }
        }
        crate::time::install(&mut node, sim, runtime.handle())?;
        if sim {
            crate::log_info!(
                "use_sim_time: the ROS clock follows /clock (timers wait for the first one)"
            );
        }
        let (tx, _rx) = watch::channel(false);
        let qos_watch = crate::qos_check::QosWatch::new();
        Ok(App {
            node,
            name: actual,
            fqn,
            given,
            runtime,
            shutdown_tx: Arc::new(tx),
            qos_watch,
            param_counters: Arc::default(),
            finishing: Arc::new(()),
            lifecycle: None,
        })
    }

    /// The node's ROS clock (`use_sim_time` honoured; see [`crate::time`]).
    pub fn clock(&self) -> Option<crate::time::RosClock> {
        crate::time::clock()
    }

    /// The node's name as launched (the default name unless renamed by `__node:=`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The node's fully qualified name (`/left/brain`).
    pub fn fqn(&self) -> &str {
        &self.fqn
    }

    /// The node's logger name (`left.brain`), what its log lines and `/rosout` records carry.
    pub fn logger(&self) -> &str {
        crate::log::logger()
    }

    /// The runtime handle: `app.handle().spawn(...)`, or `enter()` to create sockets.
    pub fn handle(&self) -> tokio::runtime::Handle {
        self.runtime.handle().clone()
    }

    /// Runs `f` inside the runtime context (for `tokio::spawn` / socket creation).
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }

    /// Makes this node a managed (lifecycle) node: declares the `managed` parameter (bool,
    /// default false, read at start; see [`crate::lifecycle`]) and returns the node's
    /// [`crate::lifecycle::Lifecycle`] (the same one on every call). Call before
    /// [`App::parameters_checked`] (so `-p managed:=true` is the node's) and
    /// [`App::diagnostics`] (which then carries the `lifecycle` status);
    /// [`crate::lifecycle::main_with`] does.
    ///
    /// # Errors
    /// `managed` given with a type other than bool.
    pub fn lifecycle(&mut self) -> Result<crate::lifecycle::Lifecycle, Error> {
        if let Some(lc) = &self.lifecycle {
            return Ok(lc.clone());
        }
        let name = crate::lifecycle::MANAGED;
        let managed = {
            let mut params = self.node.params.lock()?;
            match params.get(name).map(|p| &p.value) {
                None => {
                    let mut p = r2r::Parameter::new(r2r::ParameterValue::Bool(false));
                    p.description = MANAGED_DESCRIPTION;
                    params.insert(name.to_string(), p);
                    false
                }
                Some(r2r::ParameterValue::Bool(b)) => *b,
                Some(other) => {
                    return Err(ParameterError::Managed(other.clone()).into());
                }
            }
        };
        let lc = crate::lifecycle::Lifecycle::new(&self.fqn, managed);
        self.lifecycle = Some(lc.clone());
        Ok(lc)
    }

    /// The glue's own parameters beside the node's: `managed` for a managed node.
    fn glue_declarations(&self) -> Vec<crate::params::Declaration> {
        self.lifecycle
            .iter()
            .map(|_| crate::params::Declaration {
                name: crate::lifecycle::MANAGED,
                description: MANAGED_DESCRIPTION,
                range: crate::params::Range::Any,
                effect: crate::params::START_ONLY,
            })
            .collect()
    }

    /// A token for a task with work to do at shutdown: keep it until that work is done
    /// ([`Finishing`]).
    pub fn finishing(&self) -> Finishing {
        Finishing(self.finishing.clone())
    }

    /// The shutdown signal for tasks.
    pub fn shutdown(&self) -> Shutdown {
        Shutdown(vec![self.shutdown_tx.subscribe()])
    }

    /// Asks the spin loop to stop (as a signal would); usable from any task.
    pub fn shutdown_trigger(&self) -> impl Fn() + Send + Sync + Clone + 'static {
        let tx = self.shutdown_tx.clone();
        move || {
            let _ = tx.send(true);
        }
    }

    /// Turns SIGINT and SIGTERM into the shutdown signal ([`App::shutdown`]). [`App::spin`]
    /// calls it; a node that runs its own loop on the node calls it itself. Call inside
    /// the app's runtime context or from a thread that is not one (it spawns on
    /// [`App::handle`]).
    pub fn shutdown_on_signals(&self) {
        let trigger = self.shutdown_trigger();
        self.runtime.spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let (Ok(mut int), Ok(mut term)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) else {
                return;
            };
            tokio::select! { _ = int.recv() => {}, _ = term.recv() => {} }
            trigger();
        });
    }

    /// Declares the node's parameters (a [`crate::declare_parameters!`] struct) with only
    /// their declarations' checks; see [`App::parameters_checked`].
    pub fn parameters<P>(&mut self, defaults: P) -> Result<Arc<Mutex<P>>, Error>
    where
        P: RosParams + Declared + Clone + fmt::Debug + Send + 'static,
    {
        self.parameters_checked(defaults, crate::params::Rules::none())
    }

    /// Declares the node's parameters from `defaults` (a [`crate::declare_parameters!`]
    /// struct), applies the values given at start (`-p`, `--params-file`, with rclcpp's key
    /// matching: [`crate::params::overrides`]), checks them against their declarations and
    /// `rules.check` (else the node does not start, naming the reason), serves the
    /// parameter services (descriptors with ranges and `read_only`; every later set checked
    /// the same way, a refusal with the reason) and publishes `/parameter_events`; logs
    /// every value at start and every later change. Returns the live values.
    ///
    /// A parameter given under a key that names this node alone (`brain:`,
    /// `/left/brain:`) or with `-p` that the node does not declare is a mistake: the node
    /// does not start, naming it. One given under a wildcard key (`/**`) is left alone, as
    /// rclcpp leaves it (the file may be meant for several nodes), with one INFO line.
    pub fn parameters_checked<P>(
        &mut self,
        defaults: P,
        rules: crate::params::Rules<P>,
    ) -> Result<Arc<Mutex<P>>, Error>
    where
        P: RosParams + Declared + Clone + fmt::Debug + Send + 'static,
    {
        let mut decls = P::declarations();
        decls.extend(self.glue_declarations());
        self.check_given(&decls)?;
        let params = Arc::new(Mutex::new(defaults));
        {
            let mut table = self.node.params.lock()?;
            params
                .lock()?
                .register_parameters("", None, &mut table)
                .map_err(ParameterError::Ros)?;
            // Undeclared values given under wildcard keys are not the node's parameters.
            table.retain(|k, _| {
                k == crate::params::USE_SIM_TIME || decls.iter().any(|d| d.name == k)
            });
        }
        let mut checked = crate::params::Checked::new(params.clone(), rules, decls)
            .counted(self.param_counters.clone());
        checked.start().map_err(ParameterError::Refused)?;
        {
            let table = self.node.params.lock()?;
            for (key, p) in table.iter() {
                crate::log_info!("param {key} = {}", crate::params::decl::show(&p.value));
            }
        }
        let _guard = self.runtime.enter();
        crate::params::server::serve(&mut self.node, checked, &self.fqn)?;
        Ok(params)
    }

    /// The values given at start for this node that it does not declare: an error for
    /// those given under a key naming this node alone or with `-p`, an INFO line for
    /// those under a wildcard key.
    fn check_given(&self, decls: &[crate::params::Declaration]) -> Result<(), Error> {
        let declared =
            |n: &str| n == crate::params::USE_SIM_TIME || decls.iter().any(|d| d.name == n);
        let cli = crate::params::overrides::command_line_names(std::env::args());
        for g in &self.given {
            if declared(&g.name) {
                continue;
            }
            if g.exact() || cli.contains(&g.name) {
                let mut names: Vec<&str> = decls.iter().map(|d| d.name).collect();
                names.sort_unstable();
                return Err(ParameterError::Undeclared {
                    node: self.fqn.clone(),
                    name: g.name.clone(),
                    key: g.key.clone(),
                    declared: names,
                }
                .into());
            }
            crate::log_info!(
                "parameter {:?} (key {:?}) is not one of this node's: ignored",
                g.name,
                g.key
            );
        }
        Ok(())
    }

    /// A `/diagnostics` publisher for this node.
    pub fn diagnostics(&mut self) -> Result<crate::diagnostics::Diagnostics, Error> {
        let diagnostics = crate::diagnostics::Diagnostics::new(&mut self.node, &self.fqn)?;
        let diagnostics = diagnostics
            .with_qos(self.qos_watch.counters())
            .with_params(self.param_counters.clone());
        Ok(match &self.lifecycle {
            Some(lc) => diagnostics.with_lifecycle(lc.clone()),
            None => diagnostics,
        })
    }

    /// Subscribes to `topic` (as `node.subscribe`) and checks the QoS of its publishers
    /// (see [`App::watch_subscription`]).
    pub fn subscribe<T>(
        &mut self,
        topic: &str,
        qos: r2r::QosProfile,
    ) -> Result<impl futures::Stream<Item = T> + Unpin + Send + 'static, Error>
    where
        T: r2r::WrappedTypesupport + Send + 'static,
    {
        let stream = self.node.subscribe::<T>(topic, qos.clone())?;
        self.watch_subscription(topic, &qos);
        Ok(stream)
    }

    /// Checks, every second while the node spins, that each publisher of `topic` offers
    /// a QoS that `qos` (this node's subscription to it) can match; an incompatible one
    /// is logged once with both profiles and counted in `incompatible_qos_peers` of the
    /// node's `/diagnostics` ([`crate::qos_check`]). For subscriptions made on
    /// [`App::node`] directly; [`App::subscribe`] calls it.
    pub fn watch_subscription(&mut self, topic: &str, qos: &r2r::QosProfile) {
        let namespace = self.node.namespace().unwrap_or_default();
        let resolved = crate::qos_check::resolve(&namespace, &self.name, topic);
        self.qos_watch.watch(resolved, qos.clone());
    }

    /// Checks, every second while the node spins, that each publisher of `topic` sends
    /// `type_name` (`geometry_msgs/msg/Twist`): one of another type is logged once with
    /// `hint` (what the user can change) and counted in `wrong_type_peers` of the node's
    /// `/diagnostics` ([`crate::qos_check::QosWatch::watch_type`]).
    pub fn watch_subscription_type(&mut self, topic: &str, type_name: &str, hint: &str) {
        let namespace = self.node.namespace().unwrap_or_default();
        let resolved = crate::qos_check::resolve(&namespace, &self.name, topic);
        self.qos_watch
            .watch_type(resolved, type_name.to_string(), hint.to_string());
    }

    /// Ends the node with its teardown bounded: from now on the process has
    /// [`crate::exit::TEARDOWN_LIMIT`] to end, else it ends with `code` ([`crate::exit`]).
    /// For a program that runs its own loop and still has work after the stop (the bag
    /// recorder finishing its file): call it once that work is done, then exit with `code`.
    pub fn close(self, code: i32) {
        crate::exit::arm(&self.name, || true).set(code);
        crate::log::detach();
        drop(self);
    }

    /// Spins the node on this thread until SIGINT/SIGTERM or a shutdown request, then
    /// gives tasks a moment to finish. Returns the process exit code (0).
    pub fn spin(mut self) -> i32 {
        self.shutdown_on_signals();
        let down = self.shutdown();
        crate::log_info!("{} running", self.name);
        while !down.is_set() {
            self.node.spin_once(Duration::from_millis(10));
            self.qos_watch.poll(&self.node, std::time::Instant::now());
        }
        crate::log_info!("{} shutting down", self.name);
        // Let tasks see the signal and send their last messages, then stop them: at
        // least ten spins, and until every Finishing task is done (bounded).
        let started = std::time::Instant::now();
        let mut spins = 0;
        while spins < 10
            || (Arc::strong_count(&self.finishing) > 1 && started.elapsed() < FINISH_LIMIT)
        {
            self.node.spin_once(Duration::from_millis(10));
            spins += 1;
        }
        if Arc::strong_count(&self.finishing) > 1 {
            crate::log_warn!(
                "a task was still finishing its shutdown after {} ms: stopped",
                FINISH_LIMIT.as_millis()
            );
        }
        self.runtime.shutdown_timeout(Duration::from_millis(500));
        crate::log::detach();
        0
    }
}

/// The description of the `managed` parameter.
const MANAGED_DESCRIPTION: &str = "Wait unconfigured for a lifecycle manager (true) or configure and activate at start (false); read only at start";

/// The `use_sim_time` parameter (`-p use_sim_time:=true`, or a params file), declared
/// with its default `false` when not given, as every ROS 2 node has it. Read only at start.
fn use_sim_time(node: &r2r::Node) -> Result<bool, Error> {
    let mut params = node.params.lock()?;
    match params.get(crate::params::USE_SIM_TIME).map(|p| &p.value) {
        None => {
            let mut p = r2r::Parameter::new(r2r::ParameterValue::Bool(false));
            p.description = "Follow /clock (simulated or replayed time); read only at start";
            params.insert(crate::params::USE_SIM_TIME.to_string(), p);
            Ok(false)
        }
        Some(r2r::ParameterValue::Bool(b)) => Ok(*b),
        Some(other) => Err(ParameterError::UseSimTime(other.clone()).into()),
    }
}

/// Refuses what rcl's argument parser would turn into a panic inside r2r: a
/// `-p name:=` with no value (write `name:=''` for an empty string).
fn check_ros_args(args: impl Iterator<Item = String>) -> Result<(), Error> {
    // Only what follows `--ros-args` is rcl's (a program's own `-p` is not a parameter).
    let args: Vec<String> = args.skip_while(|a| a != "--ros-args").collect();
    for pair in args.windows(2) {
        if pair[0] == "-p" || pair[0] == "--param" {
            match pair[1].split_once(":=") {
                Some((name, "")) => return Err(ParameterError::NoValue(name.to_string()).into()),
                None => return Err(ParameterError::NotNameValue(pair[1].clone()).into()),
                _ => {}
            }
        }
    }
    Ok(())
}

/// Runs a node's `main`: builds it with `setup` and spins it. A set-up error becomes
/// one clear line (stderr and the ROS log) and exit code 2; never a panic. Once the node
/// stops, the process ends within [`crate::exit::TEARDOWN_LIMIT`].
pub fn main_with(name: &str, setup: impl FnOnce(&mut App) -> Result<(), Error>) -> ! {
    exit_with(name, setup, App::spin)
}

/// As [`main_with`], for a node that runs its own loop on the node instead of
/// [`App::spin`] (one that creates subscriptions while it runs, as `arnie_foxglove`):
/// `run` sets the node up, loops until [`App::shutdown`] is set and returns. Exit code 0,
/// or 2 with one clear line when `run` fails.
pub fn main_with_loop(name: &str, run: impl FnOnce(&mut App) -> Result<(), Error>) -> ! {
    exit_with(name, run, |app| {
        // Stopped (the loop returned): the watchdog bounds the teardown from here.
        app.shutdown_trigger()();
        crate::log::detach();
        drop(app);
        0
    })
}

/// Creates the app, runs `body` on it, then `finish` (spin, or only the teardown). The
/// exit watchdog ([`crate::exit`]) starts with the app and fires once the node stops: a
/// shutdown signal or request, or `body`'s error (which requests the shutdown before the
/// app is dropped, so a stuck teardown there is bounded too).
fn exit_with(
    name: &str,
    body: impl FnOnce(&mut App) -> Result<(), Error>,
    finish: impl FnOnce(App) -> i32,
) -> ! {
    let code = match App::new(name) {
        Err(e) => {
            eprintln!("{name}: cannot start: {e}");
            2
        }
        Ok(mut app) => {
            let down = app.shutdown();
            let exit_code = crate::exit::arm(name, move || down.is_set());
            match body(&mut app) {
                Ok(()) => finish(app),
                Err(e) => {
                    crate::log_error!("cannot start: {e}");
                    eprintln!("{name}: cannot start: {e}");
                    exit_code.set(2);
                    app.shutdown_trigger()();
                    drop(app);
                    2
                }
            }
        }
    };
    std::process::exit(code)
}

/// Wheel mode: reference libpython so the linker keeps it (see build.rs). The wheels'
/// rcl loads Python extension code that needs its symbols; the call itself does nothing.
#[cfg(arnie_link_libpython)]
fn keep_libpython() {
    extern "C" {
        fn Py_IsInitialized() -> std::os::raw::c_int;
    }
    // SAFETY: Py_IsInitialized takes no arguments and only reads a global flag.
    let _ = unsafe { Py_IsInitialized() };
}

#[cfg(not(arnie_link_libpython))]
fn keep_libpython() {}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> impl Iterator<Item = String> {
        a.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into_iter()
    }

    /// Also keeps libpython linked into this test binary (wheel mode): the ROS libraries
    /// its rcl and message code load need its symbols, and nothing else here calls
    /// `keep_libpython` (the linker would drop it with the code that does).
    #[test]
    fn libpython_is_kept_in_test_binaries() {
        keep_libpython();
    }

    #[test]
    fn empty_parameter_values_are_refused_before_rcl_sees_them() {
        assert!(check_ros_args(args(&["node", "--ros-args", "-p", "gain:=2.0"])).is_ok());
        let e = check_ros_args(args(&["node", "--ros-args", "-p", "truth_log:="])).unwrap_err();
        assert!(e.to_string().contains("truth_log:=''"), "{e}");
        assert!(check_ros_args(args(&["node", "--ros-args", "-p", "gain"])).is_err());
        assert!(check_ros_args(args(&["arnie_bag", "play", "bag", "-p", "--clock"])).is_ok());
    }
}
