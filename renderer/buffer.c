/* Buffers with their own memory, mapped when host-visible. */
#include <string.h>
#include "internal.h"

int vxr_memory_type(const vxr_context *c, uint32_t type_bits, VkMemoryPropertyFlags flags) {
    for (uint32_t i = 0; i < c->memory.memoryTypeCount; i++)
        if ((type_bits & (1u << i)) && (c->memory.memoryTypes[i].propertyFlags & flags) == flags)
            return (int)i;
    return -1;
}

vxr_result vxr_buf_create(vxr_context *c, VkDeviceSize size, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags want, VkMemoryPropertyFlags need, vxr_buf *dest,
                          vxr_error *err) {
    vxr_result res = VXR_OK;
    memset(dest, 0, sizeof *dest);
    dest->size = size < 16 ? 16 : (size + 3) & ~(VkDeviceSize)3;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = dest->size,
                             .usage = usage,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VXR_VK_TRY(c, err, c->vk.vkCreateBuffer(c->device, &bi, NULL, &dest->buffer));
    VkMemoryRequirements req;
    c->vk.vkGetBufferMemoryRequirements(c->device, dest->buffer, &req);
    int type = vxr_memory_type(c, req.memoryTypeBits, want | need);
    if (type < 0) type = vxr_memory_type(c, req.memoryTypeBits, need);
    if (type < 0) {
        res = vxr_ctx_fail(c, err, VXR_ERROR_VULKAN, "no memory type with flags 0x%x for a buffer",
                           (unsigned)need);
        goto fail;
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = (uint32_t)type};
    VXR_VK_TRY(c, err, c->vk.vkAllocateMemory(c->device, &ai, NULL, &dest->memory));
    VXR_VK_TRY(c, err, c->vk.vkBindBufferMemory(c->device, dest->buffer, dest->memory, 0));
    dest->flags = c->memory.memoryTypes[type].propertyFlags;
    if (c->memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        VXR_VK_TRY(c, err,
                   c->vk.vkMapMemory(c->device, dest->memory, 0, VK_WHOLE_SIZE, 0, &dest->map));
    return VXR_OK;
fail:
    vxr_buf_destroy(c, dest);
    return res;
}

void vxr_buf_destroy(vxr_context *c, vxr_buf *b) {
    if (b->buffer) c->vk.vkDestroyBuffer(c->device, b->buffer, NULL);
    if (b->memory) c->vk.vkFreeMemory(c->device, b->memory, NULL); /* unmaps */
    memset(b, 0, sizeof *b);
}
