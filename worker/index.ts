export { LakeWriter } from "../durable-objects/lake-writer.ts";
export default {
  async fetch(): Promise<Response> {
    return new Response("ok");
  },
};
