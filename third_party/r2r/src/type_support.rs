//! Message type support handles obtained at run time.
//!
//! (arnie patch, see `third_party/r2r/PATCH.md`.)

use crate::error::{Error, Result};
use r2r_rcl::{rosidl_message_type_support_t, rosidl_service_type_support_t};
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
