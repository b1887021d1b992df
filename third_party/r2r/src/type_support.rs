//! Message type support handles obtained at run time.
//!
//! (arnie patch, see `third_party/r2r/PATCH.md`.)

use crate::error::{Error, Result};
use r2r_rcl::{
    rcutils_get_default_allocator, rcutils_get_zero_initialized_uint8_array, rcutils_uint8_array_fini,
    rcutils_uint8_array_init, rcutils_uint8_array_t, rmw_deserialize, rmw_serialize,
    rosidl_message_type_support_t, rosidl_service_type_support_t, RCL_RET_OK,
};
use std::ffi::c_void;

/// A message type support handle found at run time, e.g. with `dlopen` from a package's
/// `lib<pkg>__rosidl_typesupport_c.so` and its
/// `rosidl_typesupport_c__get_message_type_support_handle__<pkg>__msg__<Type>` function,
/// as rosbag2 does. The library it came from must stay loaded while the handle is used.
#[derive(Debug, Clone, Copy)]
pub struct TypeSupport(*const rosidl_message_type_support_t);

// The handle points at immutable static data in the loaded library.
unsafe impl Send for TypeSupport {}
unsafe impl Sync for TypeSupport {}

impl TypeSupport {
    /// Wrap a `const rosidl_message_type_support_t *`.
    ///
    /// # Safety
    /// `ptr` must be a valid, non-null message type support handle that stays valid
    /// (its library loaded) for as long as any publisher or subscription made with it.
    pub unsafe fn from_raw(ptr: *const c_void) -> Self {
        TypeSupport(ptr as *const rosidl_message_type_support_t)
    }

    pub(crate) fn as_ptr(&self) -> *const rosidl_message_type_support_t {
        self.0
    }
}

/// `rosidl_typesupport_introspection_c__MessageMembers`' fields up to its functions, as
/// older rosidl lays them out.
#[repr(C)]
struct MembersV1 {
    message_namespace: *const std::os::raw::c_char,
    message_name: *const std::os::raw::c_char,
    member_count: u32,
    size_of: usize,
    members: *const c_void,
    init_function: Option<unsafe extern "C" fn(*mut c_void, i32)>,
    fini_function: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// The same with `has_any_key_member_` after `size_of_` (rosidl with `@key` support, as
/// the Jazzy wheels from PyPI carry).
#[repr(C)]
struct MembersV2 {
    message_namespace: *const std::os::raw::c_char,
    message_name: *const std::os::raw::c_char,
    member_count: u32,
    size_of: usize,
    has_any_key_member: bool,
    members: *const c_void,
    init_function: Option<unsafe extern "C" fn(*mut c_void, i32)>,
    fini_function: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// A message's size and rosidl's initialiser and finaliser.
#[derive(Debug, Clone, Copy)]
struct Lifecycle {
    size_of: usize,
    init: unsafe extern "C" fn(*mut c_void, i32),
    fini: unsafe extern "C" fn(*mut c_void),
}

/// Reads the members struct at `data`, whichever layout it has: the word after `size_of_`
/// is `members_` (a non-null pointer) in the older layout and the `bool` key flag with
/// zero padding (0 or 1) in the newer one.
///
/// # Safety
/// `data` must point at a `rosidl_typesupport_introspection_c__MessageMembers`.
unsafe fn lifecycle(data: *const c_void) -> Option<Lifecycle> {
    let word = unsafe { *(data as *const u64).add(4) };
    let (size_of, init, fini) = if word <= 1 {
        let m = unsafe { &*(data as *const MembersV2) };
        (m.size_of, m.init_function, m.fini_function)
    } else {
        let m = unsafe { &*(data as *const MembersV1) };
        (m.size_of, m.init_function, m.fini_function)
    };
    Some(Lifecycle {
        size_of,
        init: init?,
        fini: fini?,
    })
}

/// A message type known only at run time, in its C form: its C type support (what
/// `rmw_serialize` / `rmw_deserialize` take) and its introspection type support (its size,
/// initialiser and finaliser), for a service client that turns CDR bytes into a request
/// and a response into CDR bytes. (arnie patch)
#[derive(Debug, Clone, Copy)]
pub struct RuntimeMessage {
    ts: TypeSupport,
    lifecycle: Option<Lifecycle>,
}

unsafe impl Send for RuntimeMessage {}
unsafe impl Sync for RuntimeMessage {}

/// ROSIDL_RUNTIME_C_MSG_INIT_ALL.
const MSG_INIT_ALL: i32 = 0;

impl RuntimeMessage {
    /// From the type's C type support and its `rosidl_typesupport_introspection_c` handle.
    ///
    /// # Safety
    /// `introspection` must be the non-null introspection handle of the same type, and both
    /// libraries must stay loaded while the value is used.
    pub unsafe fn from_raw(ts: TypeSupport, introspection: *const c_void) -> Self {
        let handle = introspection as *const rosidl_message_type_support_t;
        RuntimeMessage {
            ts,
            lifecycle: unsafe { lifecycle((*handle).data) },
        }
    }

    /// A zero-initialised, rosidl-initialised message, finalised and freed on drop.
    pub(crate) fn create(&self) -> Result<NativeMessage> {
        let Some(Lifecycle { size_of, init, fini }) = self.lifecycle else {
            return Err(Error::RCL_RET_ERROR);
        };
        let layout = std::alloc::Layout::from_size_align(size_of.max(1), 16)
            .map_err(|_| Error::RCL_RET_ERROR)?;
        // SAFETY: a non-zero size; the memory is initialised by rosidl's init function.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut c_void;
        if ptr.is_null() {
            return Err(Error::RCL_RET_BAD_ALLOC);
        }
        unsafe { init(ptr, MSG_INIT_ALL) };
        Ok(NativeMessage { ptr, layout, fini })
    }

    pub(crate) fn type_support(&self) -> *const rosidl_message_type_support_t {
        self.ts.as_ptr()
    }

    /// A new message of this type read from CDR bytes (`rmw_deserialize`).
    pub(crate) fn deserialize(&self, cdr: &[u8]) -> Result<NativeMessage> {
        let msg = self.create()?;
        let serialized = rcutils_uint8_array_t {
            buffer: cdr.as_ptr() as *mut u8,
            buffer_length: cdr.len(),
            buffer_capacity: cdr.len(),
            allocator: unsafe { rcutils_get_default_allocator() },
        };
        // SAFETY: `msg` is an initialised message of this type; rmw only reads the buffer.
        let ret = unsafe { rmw_deserialize(&serialized, self.type_support(), msg.ptr()) };
        if ret != RCL_RET_OK as i32 {
            return Err(Error::from_rcl_error(ret));
        }
        Ok(msg)
    }

    /// For a service event type (`pkg/srv/Name_Event`): the event's
    /// `info.event_type` and the CDR of the request it carries (`None` when it carries
    /// none: a response event, or introspection set to metadata only). `request` is the
    /// service's request type. What rosbag2's player needs for
    /// `--publish-service-requests`: the request cannot be cut out of the event's CDR
    /// as bytes, since its alignment depends on where it starts. (arnie patch)
    ///
    /// Every service event's C struct is `ServiceEventInfo info` (40 bytes: `uint8
    /// event_type`, `builtin_interfaces/Time stamp`, `char[16] client_gid`, `int64
    /// sequence_number`) then the `request` and `response` sequences; a type of another
    /// size is refused.
    pub fn service_event_request(
        &self,
        event_cdr: &[u8],
        request: &RuntimeMessage,
    ) -> Result<(u8, Option<Vec<u8>>)> {
        const REQUEST_OFFSET: usize = 40;
        let event_size = REQUEST_OFFSET + 2 * std::mem::size_of::<Sequence>();
        if self.lifecycle.map(|l| l.size_of) != Some(event_size) {
            return Err(Error::RCL_RET_INVALID_ARGUMENT);
        }
        let msg = self.deserialize(event_cdr)?;
        let base = msg.ptr() as *const u8;
        // SAFETY: a deserialised event of the size checked above: `event_type` is its
        // first byte and `request` a rosidl_runtime_c sequence at REQUEST_OFFSET.
        let (event_type, seq) =
            unsafe { (*base, &*(base.add(REQUEST_OFFSET) as *const Sequence)) };
        if seq.size == 0 || seq.data.is_null() {
            return Ok((event_type, None));
        }
        // SAFETY: the sequence's first element is a request message, alive with `msg`.
        let cdr = unsafe { serialize_native(seq.data, request.type_support()) }?;
        Ok((event_type, Some(cdr)))
    }
}

/// A `rosidl_runtime_c` sequence: `{ T * data; size_t size; size_t capacity; }`.
#[repr(C)]
struct Sequence {
    data: *mut c_void,
    size: usize,
    capacity: usize,
}

/// The CDR bytes of the C message at `msg` (`rmw_serialize`).
///
/// # Safety
/// `msg` must point at an initialised message of the type `ts` supports.
pub(crate) unsafe fn serialize_native(
    msg: *const c_void,
    ts: *const rosidl_message_type_support_t,
) -> Result<Vec<u8>> {
    let mut out = unsafe { rcutils_get_zero_initialized_uint8_array() };
    let mut allocator = unsafe { rcutils_get_default_allocator() };
    let ret = unsafe { rcutils_uint8_array_init(&mut out, 0, &mut allocator) };
    if ret != RCL_RET_OK as i32 {
        return Err(Error::from_rcl_error(ret));
    }
    let ret = unsafe { rmw_serialize(msg, ts, &mut out) };
    let bytes = if ret == RCL_RET_OK as i32 && !out.buffer.is_null() {
        Ok(unsafe { std::slice::from_raw_parts(out.buffer, out.buffer_length) }.to_vec())
    } else {
        Err(Error::from_rcl_error(ret))
    };
    unsafe { rcutils_uint8_array_fini(&mut out) };
    bytes
}

/// A message allocated for [`RuntimeMessage`].
pub(crate) struct NativeMessage {
    ptr: *mut c_void,
    layout: std::alloc::Layout,
    fini: unsafe extern "C" fn(*mut c_void),
}

impl NativeMessage {
    pub(crate) fn ptr(&self) -> *mut c_void {
        self.ptr
    }
}

impl Drop for NativeMessage {
    fn drop(&mut self) {
        // SAFETY: allocated and initialised in `create`, finalised once.
        unsafe {
            (self.fini)(self.ptr);
            std::alloc::dealloc(self.ptr as *mut u8, self.layout);
        }
    }
}

/// A service type support handle found at run time
/// (`rosidl_typesupport_c__get_service_type_support_handle__<pkg>__srv__<Name>`). (arnie
/// patch)
#[derive(Debug, Clone, Copy)]
pub struct ServiceTypeSupport(*const rosidl_service_type_support_t);

unsafe impl Send for ServiceTypeSupport {}
unsafe impl Sync for ServiceTypeSupport {}

impl ServiceTypeSupport {
    /// Wrap a `const rosidl_service_type_support_t *`.
    ///
    /// # Safety
    /// As [`TypeSupport::from_raw`], for a service.
    pub unsafe fn from_raw(ptr: *const c_void) -> Self {
        ServiceTypeSupport(ptr as *const rosidl_service_type_support_t)
    }

    pub(crate) fn as_ptr(&self) -> *const rosidl_service_type_support_t {
        self.0
    }
}
