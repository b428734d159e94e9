//! The resources of a [`ToolSet`](crate::ToolSet): fixed ones by URI, templates in the order
//! they were added.

use futures_util::FutureExt;

use super::{Address, Resource, ResourceContents, ResourceDefinition, ResourceError};
use crate::completion::{CompletionRequest, Completions};
use crate::context::CallContext;
use crate::registry::{BoxFuture, Index, guarded};
use crate::string_args::StringArgError;
use crate::{BuildError, StringArgs};

/// Resources and templates.
#[derive(Default)]
pub(crate) struct Resources {
    entries: Vec<Box<dyn DynResource>>,
    /// Every entry by its URI or template text: a read finds a fixed URI here, a completion
    /// its template.
    index: Index,
}

impl Resources {
    pub(crate) fn push<R: Resource>(&mut self, resource: R) {
        self.entries.push(Box::new(resource));
    }

    /// Indexes the resources; refuses two of one URI (or template).
    pub(crate) fn build(mut self) -> Result<Resources, BuildError> {
        self.index = Index::new(
            self.entries
                .iter()
                .map(|entry| (entry.definition().uri(), entry.type_name())),
        )
        .map_err(|(uri, first, second)| BuildError::DuplicateResource {
            uri,
            first,
            second,
        })?;
        Ok(self)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The resources at a fixed URI.
    pub(crate) fn fixed(&self) -> impl Iterator<Item = &'static ResourceDefinition> + '_ {
        self.definitions()
            .filter(|d| matches!(d.address(), Address::Fixed(_)))
    }

    /// The templates.
    pub(crate) fn templates(&self) -> impl Iterator<Item = &'static ResourceDefinition> + '_ {
        self.definitions()
            .filter(|d| matches!(d.address(), Address::Template(_)))
    }

    fn definitions(&self) -> impl Iterator<Item = &'static ResourceDefinition> + '_ {
        self.entries.iter().map(|entry| entry.definition())
    }

    /// Reads `uri`: the resource at that fixed URI, else the first template that matches it.
    pub(crate) async fn read(
        &self,
        uri: &str,
        context: CallContext,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        let fixed = self
            .index
            .position(uri)
            .map(|i| self.entries[i].as_ref())
            .filter(|entry| matches!(entry.definition().address(), Address::Fixed(_)))
            .map(|entry| (entry, StringArgs::new()));
        let found = fixed.or_else(|| {
            self.entries
                .iter()
                .find_map(|entry| match entry.definition().address() {
                    Address::Template(template) => {
                        template.matches(uri).map(|values| (entry.as_ref(), values))
                    }
                    Address::Fixed(_) => None,
                })
        });
        let Some((entry, variables)) = found else {
            return Err(ResourceError::NotFound {
                uri: uri.to_owned(),
            });
        };
        guarded(entry.read(uri, variables, context), |message| {
            ResourceError::Panicked {
                uri: uri.to_owned(),
                message,
            }
        })
        .await
    }

    /// Suggestions for a variable of the template written `template` (or of the resource at
    /// that URI, which has none).
    pub(crate) async fn complete(
        &self,
        template: &str,
        request: CompletionRequest,
        context: CallContext,
    ) -> Result<Completions, ResourceError> {
        let Some(entry) = self
            .index
            .position(template)
            .map(|i| self.entries[i].as_ref())
        else {
            return Err(ResourceError::NotFound {
                uri: template.to_owned(),
            });
        };
        let known = match entry.definition().address() {
            Address::Template(template) => template.variables().any(|v| v == request.argument),
            Address::Fixed(_) => false,
        };
        if !known {
            return Err(ResourceError::Variable {
                uri: template.to_owned(),
                source: StringArgError::Unknown {
                    name: request.argument,
                },
            });
        }
        let completed = entry.complete(request, context).map(|completed| {
            completed.map_err(|message| ResourceError::Failed {
                uri: template.to_owned(),
                message,
            })
        });
        guarded(completed, |message| ResourceError::Panicked {
            uri: template.to_owned(),
            message,
        })
        .await
    }
}

/// A [`Resource`] with its type erased.
trait DynResource: Send + Sync + 'static {
    fn definition(&self) -> &'static ResourceDefinition;
    fn type_name(&self) -> &'static str;
    fn read<'a>(
        &'a self,
        uri: &'a str,
        variables: StringArgs,
        context: CallContext,
    ) -> BoxFuture<'a, Result<Vec<ResourceContents>, ResourceError>>;
    fn complete(
        &self,
        request: CompletionRequest,
        context: CallContext,
    ) -> BoxFuture<'_, Result<Completions, String>>;
}

impl<R: Resource> DynResource for R {
    fn definition(&self) -> &'static ResourceDefinition {
        Resource::definition(self)
    }

    fn type_name(&self) -> &'static str {
        Resource::type_name(self)
    }

    fn read<'a>(
        &'a self,
        uri: &'a str,
        variables: StringArgs,
        context: CallContext,
    ) -> BoxFuture<'a, Result<Vec<ResourceContents>, ResourceError>> {
        Box::pin(Resource::read(self, uri, variables, context))
    }

    fn complete(
        &self,
        request: CompletionRequest,
        context: CallContext,
    ) -> BoxFuture<'_, Result<Completions, String>> {
        Box::pin(Resource::complete(self, request, context))
    }
}
