//! `tools/list` of 1,000 tools from an MCP server after warm-up, as a client sees it: an rmcp
//! client and a tooldef `McpServer` connected in process, every page requested.
//! `cargo bench -p tooldef --features mcp --bench mcp_list`.

mod support;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::PaginatedRequestParams;
use tooldef::mcp::McpServer;

fn mcp_list(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(async {
        let (server_side, client_side) = tokio::io::duplex(16 << 20);
        let server = McpServer::new(support::toolset());
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_side).await.unwrap();
        // Warm-up: the first listing renders the definitions; later ones are served cached.
        assert_eq!(client.list_all_tools().await.unwrap().len(), 1000);
        client
    });
    let mut group = c.benchmark_group("mcp tools/list, 1000 tools");
    group.sample_size(20);
    group.bench_function("all 10 pages, after warm-up", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut cursor = None;
                let mut count = 0;
                loop {
                    let page = client
                        .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
                        .await
                        .unwrap();
                    count += page.tools.len();
                    match page.next_cursor {
                        Some(next) => cursor = Some(next),
                        None => break,
                    }
                }
                black_box(count)
            })
        })
    });
    group.finish();
}

criterion_group!(benches, mcp_list);
criterion_main!(benches);
