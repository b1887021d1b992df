//! [`Bridge`]: what the spin thread owns: the ROS subscriptions and publishers made on
//! demand for the WebSocket clients, the graph discovery that becomes Foxglove channels,
//! and the parameter calls (a pure move out of `ros/mod.rs`).

use super::*;
/// Everything the spin thread owns.
pub(super) struct Bridge {
    pub(super) shared: Arc<Shared>,
    pub(super) ctx: Arc<Context>,
    pub(super) schemas: Schemas,
    /// Topic name -> advertised topic.
    pub(super) by_name: HashMap<String, Arc<Topic>>,
    /// Topics not advertised (several types, no definition): warned once.
    pub(super) skipped: HashSet<String>,
    /// Raw subscriptions: topic -> the task draining it.
    pub(super) subs: HashMap<String, tokio::task::JoinHandle<()>>,
    pub(super) param_clients: HashMap<String, ParamClients>,
    pub(super) rt: tokio::runtime::Handle,
    /// The ROS services advertised to clients, and their raw clients.
    pub(super) services: super::services::Services,
    pub(super) server: Arc<foxglove::WebSocketServerHandle>,
}

pub(super) fn to_qos(q: &QosProfile) -> Qos {
    Qos {
        reliability: match q.reliability {
            ReliabilityPolicy::Reliable => Reliability::Reliable,
            ReliabilityPolicy::BestEffort => Reliability::BestEffort,
            _ => Reliability::SystemDefault,
        },
        durability: match q.durability {
            DurabilityPolicy::TransientLocal => Durability::TransientLocal,
            DurabilityPolicy::Volatile => Durability::Volatile,
            _ => Durability::SystemDefault,
        },
        ..Qos::default()
    }
}

/// rosbag2's request as an r2r profile: keep-last (10, or the latched depth), the chosen
/// reliability and durability.
pub(super) fn request_profile(q: &Qos, depth: usize) -> QosProfile {
    let mut p = QosProfile::default().keep_last(10);
    p.reliability = match q.reliability {
        Reliability::BestEffort => ReliabilityPolicy::BestEffort,
        _ => ReliabilityPolicy::Reliable,
    };
    p.depth = depth.max(10);
    p.durability = if q.durability == Durability::TransientLocal {
        DurabilityPolicy::TransientLocal
    } else {
        DurabilityPolicy::Volatile
    };
    p
}

impl Bridge {
    /// Advertises new topics, closes gone ones.
    pub(super) fn discover(&mut self, node: &r2r::Node) {
        let graph = match node.get_topic_names_and_types() {
            Ok(g) => g,
            Err(e) => {
                node_glue::log_warn!("cannot list topics: {e}");
                return;
            }
        };
        let mut names: Vec<&String> = graph.keys().collect();
        names.sort();
        for name in names {
            if self.by_name.contains_key(name)
                || self.skipped.contains(name)
                || !self.shared.config.advertises(name)
            {
                continue;
            }
            let types = &graph[name];
            if types.len() != 1 {
                self.skipped.insert(name.clone());
                node_glue::log_warn!("not advertising {name}: several types {types:?}");
                continue;
            }
            let type_name = &types[0];
            let schema = match self.schemas.schema(type_name) {
                Ok(s) => s,
                Err(e) => {
                    self.skipped.insert(name.clone());
                    node_glue::log_warn!("not advertising {name} ({type_name}): {e}");
                    continue;
                }
            };
            let channel = ChannelBuilder::new(name.as_str())
                .message_encoding(crate::MESSAGE_ENCODING)
                .schema(schema)
                .context(&self.ctx)
                .build_raw();
            let channel = match channel {
                Ok(c) => c,
                Err(e) => {
                    self.skipped.insert(name.clone());
                    node_glue::log_warn!("not advertising {name}: {e}");
                    continue;
                }
            };
            let topic = Arc::new(Topic {
                name: name.clone(),
                type_name: type_name.clone(),
                channel: channel.clone(),
                active: AtomicBool::new(false),
                latched: AtomicBool::new(false),
                cache: Mutex::new(LastMessages::new(self.shared.config.latched_depth)),
            });
            self.shared
                .topics
                .write()
                .unwrap_or_else(|p| p.into_inner())
                .insert(channel.id(), topic.clone());
            self.by_name.insert(name.clone(), topic);
            node_glue::log_info!("advertising {name} ({type_name})");
        }
        let gone: Vec<String> = self
            .by_name
            .keys()
            .filter(|n| !graph.contains_key(*n))
            .cloned()
            .collect();
        for name in gone {
            if let Some(topic) = self.by_name.remove(&name) {
                {
                    let mut demand = lock(&self.shared.demand);
                    demand.forget(&name);
                    topic.active.store(false, Ordering::Release);
                }
                if let Some(task) = self.subs.remove(&name) {
                    task.abort();
                }
                self.shared
                    .topics
                    .write()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&topic.channel.id());
                topic.channel.close();
                node_glue::log_info!("{name} left the graph: unadvertised");
            }
        }
        self.skipped.retain(|n| graph.contains_key(n));
    }

    /// Subscribes to the topics clients want, drops the others. Returns false when some
    /// wanted topic has no publisher yet (retried at the next poll).
    pub(super) fn reconcile(&mut self, node: &mut r2r::Node) -> bool {
        let mut complete = true;
        let demand = lock(&self.shared.demand);
        let wanted = demand.wanted();
        let drop_now: Vec<String> = self
            .subs
            .keys()
            .filter(|n| !wanted.contains(*n))
            .cloned()
            .collect();
        for name in drop_now {
            if let Some(topic) = self.by_name.get(&name) {
                topic.active.store(false, Ordering::Release);
            }
            if let Some(task) = self.subs.remove(&name) {
                // The stream goes with the task; r2r destroys the subscription at its next message.
                task.abort();
                node_glue::log_info!("{name}: no client left: unsubscribed");
            }
        }
        for name in wanted {
            if self.subs.contains_key(&name) {
                continue;
            }
            let Some(topic) = self.by_name.get(&name).cloned() else {
                continue;
            };
            let offers: Vec<Qos> = match node.get_publishers_info_by_topic(&name, false) {
                Ok(infos) => infos.iter().map(|i| to_qos(&i.qos_profile)).collect(),
                Err(e) => {
                    node_glue::log_warn!("cannot read publishers of {name}: {e}");
                    continue;
                }
            };
            if offers.is_empty() {
                complete = false;
                continue;
            }
            let (request, compromises) = Qos::adapt_request_to_offers(&offers);
            for c in &compromises {
                node_glue::log_warn!(
                    "{name}: {c:?}: subscribing {:?}/{:?}",
                    request.reliability,
                    request.durability
                );
            }
            let latched = request.durability == Durability::TransientLocal;
            let depths: Vec<u64> = offers.iter().map(|q| q.depth).collect();
            let config = &self.shared.config;
            // A latched reader keeps every publisher's history (the sum of their depths);
            // a volatile one keeps a burst as deep as our own queue.
            let keep = latched_keep(&depths, config.latched_depth);
            let queue = queue_len(&depths, config.subscription_queue);
            let history = if latched { keep } else { queue };
            let stream = match node_glue::typesupport::subscribe(
                node,
                &name,
                &topic.type_name,
                request_profile(&request, history),
                queue,
                self.shared.counters.subscription_overflow.clone(),
            ) {
                Ok(s) => s,
                Err(e) => {
                    node_glue::log_warn!("not streaming {name}: {e}");
                    continue;
                }
            };
            topic.latched.store(latched, Ordering::Release);
            *lock(&topic.cache) = LastMessages::new(keep);
            topic.active.store(true, Ordering::Release);
            let counters = self.shared.counters.clone();
            let t = topic.clone();
            let mut stream = stream;
            let task = self.rt.spawn(async move {
                while let Some(msg) = stream.next().await {
                    let data = msg.data;
                    let now = ros_now_ns();
                    if latched {
                        lock(&t.cache).push(now, &data);
                    }
                    t.channel.log_with_meta(
                        &data,
                        PartialMetadata {
                            log_time: Some(now),
                        },
                    );
                    counters.messages_forwarded.inc();
                }
            });
            self.subs.insert(name.clone(), task);
            node_glue::log_info!(
                "{name}: subscribed for clients ({:?}/{:?})",
                request.reliability,
                request.durability
            );
        }
        drop(demand);
        complete
    }

    pub(super) fn param_clients(
        &mut self,
        node: &mut r2r::Node,
        name: &str,
    ) -> Option<ParamClients> {
        if let Some(c) = self.param_clients.get(name) {
            return Some(c.clone());
        }
        let qos = QosProfile::services_default();
        let made = (|| -> r2r::Result<ParamClients> {
            Ok(ParamClients {
                list: Arc::new(node.create_client::<ListParameters::Service>(
                    &format!("{name}/list_parameters"),
                    qos.clone(),
                )?),
                get: Arc::new(node.create_client::<GetParameters::Service>(
                    &format!("{name}/get_parameters"),
                    qos.clone(),
                )?),
                set: Arc::new(node.create_client::<SetParameters::Service>(
                    &format!("{name}/set_parameters"),
                    qos.clone(),
                )?),
            })
        })();
        match made {
            Ok(c) => {
                self.param_clients.insert(name.to_string(), c.clone());
                Some(c)
            }
            Err(e) => {
                node_glue::log_warn!("cannot create parameter clients for {name}: {e}");
                None
            }
        }
    }

    /// Every node on the graph (each publishes /rosout), fully qualified.
    pub(super) fn nodes(node: &r2r::Node) -> Vec<String> {
        let mut out: Vec<String> = node
            .get_publishers_info_by_topic("/rosout", false)
            .map(|infos| {
                infos
                    .iter()
                    .map(|i| {
                        let ns = i.node_namespace.trim_end_matches('/');
                        format!("{ns}/{}", i.node_name)
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out.dedup();
        out
    }

    /// Advertises new ROS services, removes gone ones.
    pub(super) fn discover_services(&mut self, node: &r2r::Node) {
        self.services
            .discover(node, &self.shared, &mut self.schemas, &self.server);
    }

    pub(super) fn run(&mut self, node: &mut r2r::Node, cmd: Cmd) {
        match cmd {
            Cmd::Call(call) => self.services.call(node, &self.rt, call),
            Cmd::Advertise {
                key,
                topic,
                type_name,
            } => {
                let made = node_glue::typesupport::publisher(
                    node,
                    &topic,
                    &type_name,
                    node_glue::qos::commands(),
                );
                let mut slots = lock(&self.shared.slots);
                match made {
                    Ok(p) => {
                        if let Some(Slot::Pending(q)) = slots.get(&key) {
                            for m in q {
                                match p.publish_raw(m) {
                                    Ok(()) => self.shared.counters.published.inc(),
                                    Err(_) => self.shared.counters.publish_dropped.inc(),
                                };
                            }
                            slots.insert(key, Slot::Ready(p));
                            node_glue::log_info!(
                                "client {:?} publishes on {topic} ({type_name})",
                                key.0
                            );
                        }
                        // Else the client unadvertised meanwhile: `p` is dropped unused.
                    }
                    Err(e) => {
                        slots.remove(&key);
                        self.shared.counters.publish_refused.inc();
                        self.shared
                            .refuse_log(&format!("cannot publish on {topic} ({type_name}): {e}"));
                    }
                }
            }
            Cmd::Unadvertise(p) => node.destroy_publisher_untyped(p),
            Cmd::GetParams { names, responder } => {
                let by_node = self.group(
                    node,
                    names.iter().map(|n| (n.clone(), ())),
                    names.is_empty(),
                );
                let counters = self.shared.counters.clone();
                self.rt.spawn(async move {
                    let mut out = Vec::new();
                    for (name, (clients, wanted)) in by_node {
                        let params: Vec<String> = wanted.into_iter().map(|(p, ())| p).collect();
                        match get_params(&name, &clients, params).await {
                            Ok(mut p) => out.append(&mut p),
                            Err(e) => {
                                counters.parameter_errors.inc();
                                node_glue::log_warn!("parameters of {name}: {e}");
                            }
                        }
                    }
                    responder.respond(out);
                });
            }
            Cmd::SetParams {
                params,
                client,
                responder,
            } => {
                let mut values = Vec::new();
                for p in &params {
                    match from_foxglove(p) {
                        Ok(v) => values.push((p.name.clone(), v)),
                        Err(e) => {
                            self.shared.counters.parameter_errors.inc();
                            client.send_error(format!("parameter refused: {e}"));
                        }
                    }
                }
                let by_node = self.group(node, values.into_iter(), false);
                let counters = self.shared.counters.clone();
                self.rt.spawn(async move {
                    let mut out = Vec::new();
                    for (name, (clients, values)) in by_node {
                        let names: Vec<String> = values.iter().map(|(p, _)| p.clone()).collect();
                        match set_params(&name, &clients, values).await {
                            Ok(refused) => {
                                for r in refused {
                                    counters.parameter_errors.inc();
                                    client.send_error(r);
                                }
                            }
                            Err(e) => {
                                counters.parameter_errors.inc();
                                client.send_error(format!("parameters of {name}: {e}"));
                            }
                        }
                        if let Ok(mut p) = get_params(&name, &clients, names).await {
                            out.append(&mut p);
                        }
                    }
                    responder.respond(out);
                });
            }
        }
    }

    /// Groups `/node.param` keyed items by node (every node when `all`), with its clients.
    #[allow(clippy::type_complexity)]
    pub(super) fn group<V>(
        &mut self,
        node: &mut r2r::Node,
        items: impl Iterator<Item = (String, V)>,
        all: bool,
    ) -> BTreeMap<String, (ParamClients, Vec<(String, V)>)> {
        let mut by: BTreeMap<String, Vec<(String, V)>> = BTreeMap::new();
        if all {
            for n in Self::nodes(node) {
                by.entry(n).or_default();
            }
        }
        for (full, v) in items {
            match split_name(&full) {
                Some((n, p)) => by
                    .entry(n.to_string())
                    .or_default()
                    .push((p.to_string(), v)),
                None => {
                    self.shared.counters.parameter_errors.inc();
                    self.shared
                        .refuse_log(&format!("parameter name `{full}` is not /node.parameter"));
                }
            }
        }
        by.into_iter()
            .filter_map(|(n, items)| self.param_clients(node, &n).map(|c| (n, (c, items))))
            .collect()
    }
}
