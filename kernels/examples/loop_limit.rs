//! Measures whether the adapter's shader compiler caps loop iterations per invocation.
//!
//! `cargo run -p propnet-kernels --example loop_limit`
//!
//! Runs a one-invocation shader with two loops (trip counts from a uniform, so the compiler
//! cannot unroll them) and reports how many iterations each completed. llvmpipe/lavapipe
//! (Mesa gallivm) keeps one iteration counter per shader invocation group, shared by every
//! loop of the shader and set to 65,535 at entry; when it runs out, every loop exits at its
//! next back edge, silently. The runner's step budget and overrun probe exist because of it.

use wgpu::util::DeviceExt as _;

const SHADER: &str = "
struct P { a: u32, b: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn main() {
    var i = 0u;
    var j = 0u;
    loop {
        if (i >= p.a) { break; }
        i = i + 1u;
    }
    loop {
        if (j >= p.b) { break; }
        j = j + 1u;
    }
    o[0] = i;
    o[1] = j;
}
";

fn main() {
    let adapter = propnet_kernels::runner::request_adapter().expect("adapter");
    println!(
        "adapter: {}",
        propnet_kernels::runner::adapter_text(&adapter.get_info())
    );
    let (device, queue) =
        pollster::block_on(adapter.request_device(&Default::default())).expect("device");
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    for (a, b) in [
        (1000u32, 1000u32),
        (65_534, 1),
        (65_535, 1),
        (40_000, 40_000),
        (100_000, 10),
        (10, 100_000),
    ] {
        let ubuf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(&[a, b]),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let obuf = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 8,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let rb = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 8,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: ubuf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: obuf.as_entire_binding(),
                },
            ],
        });
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        enc.copy_buffer_to_buffer(&obuf, 0, &rb, 0, 8);
        queue.submit([enc.finish()]);
        rb.slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        let got: Vec<u32> =
            bytemuck::cast_slice(&rb.slice(..).get_mapped_range().expect("range")).to_vec();
        println!(
            "asked {a:>6} + {b:>6} iterations: ran {:>6} + {:>6}{}",
            got[0],
            got[1],
            if got[0] != a || got[1] != b {
                "  <- cut short"
            } else {
                ""
            }
        );
    }
}
