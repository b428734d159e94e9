//! The prompts of a [`ToolSet`](crate::ToolSet), by name, their types erased.

use futures_util::FutureExt;

use super::{Prompt, PromptDefinition, PromptError, PromptReply};
use crate::completion::{CompletionRequest, Completions};
use crate::context::CallContext;
use crate::registry::{BoxFuture, Index, guarded};
use crate::{BuildError, StringArgs};

/// Prompts by name, in the order they were added.
#[derive(Default)]
pub(crate) struct Prompts {
    entries: Vec<Box<dyn DynPrompt>>,
    index: Index,
}

impl Prompts {
    pub(crate) fn push<P: Prompt>(&mut self, prompt: P) {
        self.entries.push(Box::new(prompt));
    }

    /// Indexes the prompts; refuses two of one name.
    pub(crate) fn build(mut self) -> Result<Prompts, BuildError> {
        self.index = Index::new(
            self.entries
                .iter()
                .map(|entry| (entry.definition().name(), entry.type_name())),
        )
        .map_err(|(name, first, second)| BuildError::DuplicatePrompt {
            name,
            first,
            second,
        })?;
        Ok(self)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn definitions(&self) -> impl Iterator<Item = &'static PromptDefinition> + '_ {
        self.entries.iter().map(|entry| entry.definition())
    }

    fn entry(&self, name: &str) -> Result<&dyn DynPrompt, PromptError> {
        match self.index.position(name) {
            Some(i) => Ok(self.entries[i].as_ref()),
            None => Err(PromptError::Unknown {
                name: name.to_owned(),
                suggestions: crate::names::closest(name, self.definitions().map(|d| d.name()))
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
                available: self.entries.len(),
            }),
        }
    }

    /// The prompt `name`'s messages; a panicking prompt is an error, not a crash.
    pub(crate) async fn get(
        &self,
        name: &str,
        arguments: StringArgs,
        context: CallContext,
    ) -> Result<PromptReply, PromptError> {
        let entry = self.entry(name)?;
        let prompt = || entry.definition().name().to_owned();
        guarded(entry.get(arguments, context), |message| {
            PromptError::Panicked {
                prompt: prompt(),
                message,
            }
        })
        .await
    }

    /// Suggestions for an argument of the prompt `name`.
    pub(crate) async fn complete(
        &self,
        name: &str,
        request: CompletionRequest,
        context: CallContext,
    ) -> Result<Completions, PromptError> {
        let entry = self.entry(name)?;
        let prompt = || entry.definition().name().to_owned();
        if !entry
            .definition()
            .arguments()
            .iter()
            .any(|argument| argument.name == request.argument)
        {
            return Err(PromptError::Argument {
                prompt: prompt(),
                source: crate::string_args::StringArgError::Unknown {
                    name: request.argument,
                },
            });
        }
        let completed = entry.complete(request, context).map(|completed| {
            completed.map_err(|message| PromptError::Failed {
                prompt: prompt(),
                message,
            })
        });
        guarded(completed, |message| PromptError::Panicked {
            prompt: prompt(),
            message,
        })
        .await
    }
}

/// A [`Prompt`] with its type erased.
trait DynPrompt: Send + Sync + 'static {
    fn definition(&self) -> &'static PromptDefinition;
    fn type_name(&self) -> &'static str;
    fn get(
        &self,
        arguments: StringArgs,
        context: CallContext,
    ) -> BoxFuture<'_, Result<PromptReply, PromptError>>;
    fn complete(
        &self,
        request: CompletionRequest,
        context: CallContext,
    ) -> BoxFuture<'_, Result<Completions, String>>;
}

impl<P: Prompt> DynPrompt for P {
    fn definition(&self) -> &'static PromptDefinition {
        Prompt::definition(self)
    }

    fn type_name(&self) -> &'static str {
        Prompt::type_name(self)
    }

    fn get(
        &self,
        arguments: StringArgs,
        context: CallContext,
    ) -> BoxFuture<'_, Result<PromptReply, PromptError>> {
        Box::pin(Prompt::get(self, arguments, context))
    }

    fn complete(
        &self,
        request: CompletionRequest,
        context: CallContext,
    ) -> BoxFuture<'_, Result<Completions, String>> {
        Box::pin(Prompt::complete(self, request, context))
    }
}
